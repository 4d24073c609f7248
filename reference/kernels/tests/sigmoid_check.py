#!/usr/bin/env python3
"""How close silu's and gelu_quick's 16-bit form is, over every 16-bit input (issue #32).

    sigmoid_check.py                  # a float32 model of the form, here (numpy)
    sigmoid_check.py --lib LIBPROBE   # the device code itself, on a GPU (torch)

The activation kernels compute silu, silu_and_mul, mul_and_silu and
gelu_quick for float16/bfloat16 outputs as x * sigmoid(c x) =
x / (1 + e^(-c x)) (c = 1 for silu, 1.702 for gelu_quick), e^(-c x) one
ex2.approx of -c log2(e) x and the reciprocal one rcp.approx that keeps
denormal results (reference/kernels/activation/activation_cuda/
activation_kernels.cu, x_times_sigmoid). For each 16-bit type and each
finite input this counts the results that differ from the exact value
(float64, rounded once to the type), where they are and by how many ulps,
beside the same count for the float32 form the float32 kernels and Torch's
eager silu use, x / (1 + expf(-c x)).

Without --lib the form is modelled in float32 (numpy): every operation
rounded once, 2^t and the reciprocal exact before their rounding (the GPU's
ex2.approx and rcp.approx add up to about 2 ulp of float32, 2^-22), ex2's
results below 2^-126 flushed to 0 as its .ftz does. With --lib (the library
reference/kernels/tests/roofline_probe.sh builds) the production launchers
run the inputs on the GPU: silu and gelu_quick (elementwise), silu_and_mul
with b = 1 and mul_and_silu with a = 1.
"""
import argparse

import numpy as np

from sixteen_bit import TYPES, device_cases, finite_inputs, report, round_to

LOG2_E = 1.4426950408889634
FORMS = {"silu": 1.0, "gelu_quick": 1.702}


def exact(x, c):
    x = x.astype(np.float64)
    with np.errstate(over="ignore"):
        return x / (1.0 + np.exp(-c * x))


def narrow_model(x, c):
    """x * rcp(1 + ex2(-c log2(e) x)) in float32, as x_times_sigmoid writes it."""
    f = np.float32
    c_log2e = f(f(c) * f(LOG2_E))  # the constant as the kernel folds it (float * float)
    x = x.astype(f)
    with np.errstate(over="ignore", divide="ignore"):
        t = (f(-c_log2e) * x).astype(np.float64)
        e = np.exp2(t).astype(f)
        e[np.abs(e) < np.finfo(f).tiny] = 0  # ex2.approx.ftz
        r = (1.0 / (f(1) + e).astype(np.float64)).astype(f)  # rcp.approx without .ftz: denormals kept
        return (x * r).astype(np.float64)


def float32_form(x, c):
    """x / (1 + expf(-c x)) in float32: the float32 kernels' and Torch's form."""
    f = np.float32
    x = x.astype(f)
    with np.errstate(over="ignore"):
        return (x / (f(1) + np.exp(f(-c) * x))).astype(np.float64)


def on_gpu(lib_path):
    import torch

    for name, x, xt, run, gated in device_cases(lib_path):
        n = x.size
        for op, form in ((4, "silu"), (7, "gelu_quick")):
            report(f"{form}, device code", x, run(op, xt), round_to(exact(x, FORMS[form]), name), name)
        want = round_to(exact(x, 1.0), name)
        report("silu_and_mul (b = 1), device", x, run(0, gated(x_first=True)), want, name)
        report("mul_and_silu (a = 1), device", x, run(11, gated(x_first=False)), want, name)
        report("Torch eager F.silu", x, torch.nn.functional.silu(xt).double().cpu().numpy()[:n], want, name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", help="the probe library: check the device code on the GPU")
    args = parser.parse_args()
    if args.lib:
        on_gpu(args.lib)
        return
    for name in TYPES:
        x = finite_inputs(name)
        for form, c in FORMS.items():
            want = round_to(exact(x, c), name)
            report(f"{form}: x * rcp(1 + ex2), model", x, round_to(narrow_model(x, c), name), want, name)
            report(f"{form}: x / (1 + expf(-c x))", x, round_to(float32_form(x, c), name), want, name)


if __name__ == "__main__":
    main()
