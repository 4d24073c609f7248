#!/usr/bin/env python3
"""How close the tanh GELUs' 16-bit form is, over every 16-bit input (issue #32).

    gelu_tanh_check.py                  # a float32 model of the form, here (numpy)
    gelu_tanh_check.py --lib LIBPROBE   # the device code itself, on a GPU (torch)

The activation kernels compute gelu_tanh, gelu_new, gelu_fast and
gelu_tanh_and_mul for float16/bfloat16 outputs as x * sigmoid(2u) =
x / (1 + e^(-2u)), which equals 0.5 x (1 + tanh(u)) exactly, with e^(-2u)
one ex2.approx and the reciprocal one rcp.approx
(reference/kernels/activation/activation_cuda/activation_kernels.cu,
GeluTanhNarrow). For each 16-bit type and each finite input this counts
the results that differ from the exact value (float64, rounded once to the
type), where they are and by how many ulps, beside the same count for the
tanh form Torch's eager kernel and the float32 kernels use,
0.5 x (1 + tanhf(u)) in float32.

Without --lib, the form is modelled in float32 (numpy), for gelu_tanh's u
and gelu_fast's: every operation rounded once, e^(-2u) and the reciprocal
exact before their rounding (the GPU's ex2.approx and rcp.approx add up to
about 2 ulp of float32, 2^-22); it also prints the largest error of ex2's
argument -2 log2(e) u as float32 computes it, which sets e^(-2u)'s relative
error. Where that argument passes 128 (x <= -10.0625) e^(-2u) is +inf and
the result -0, where the exact bfloat16 result is at most 2.9e-38 in
magnitude: those are the bfloat16 results that differ.
With --lib (the library reference/kernels/tests/roofline_probe.sh builds),
the production launcher runs the inputs on the GPU: gelu_tanh (elementwise),
gelu_tanh_and_mul with b = 1, and gelu_fast (probe op 10).
"""
import argparse
import math

import numpy as np

from sixteen_bit import TYPES, device_cases, finite_inputs, report, round_to

C = 0.7978845608028654  # sqrt(2/pi)
K = 0.044715
TWO_LOG2_E = 2.8853900817779268


def inner(x, form, t):
    """u of the form, computed in type t as the kernel writes it (activation::GeluTanh / GeluFast)."""
    if form == "gelu_tanh":
        return t(C) * (x + t(K) * x * x * x)
    return x * t(0.7978845608) * (t(1) + t(K) * x * x)  # gelu_fast


def exact(x, form="gelu_tanh"):
    """The form in float64, as x * sigmoid(2u) (no cancellation)."""
    x = x.astype(np.float64)
    u = inner(x, form, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        return x / (1.0 + np.exp(-2.0 * u))


def narrow_model(x, form="gelu_tanh"):
    f = np.float32
    x = x.astype(f)
    with np.errstate(over="ignore", invalid="ignore"):
        u = inner(x, form, f)
        e = np.exp2((f(-TWO_LOG2_E) * u).astype(np.float64)).astype(f)
        r = (1.0 / (f(1) + e).astype(np.float64)).astype(f)
        return (x * r).astype(np.float64)


def argument_error(x, form):
    """The largest |error| of ex2's argument, -2 log2(e) u, as float32 computes it, where it is under 128
    in magnitude (e^(-2u) finite): what sets the relative error of e^(-2u)."""
    f = np.float32
    with np.errstate(over="ignore", invalid="ignore"):
        got = (f(-TWO_LOG2_E) * inner(x.astype(f), form, f)).astype(np.float64)
        want = -TWO_LOG2_E * inner(x.astype(np.float64), form, np.float64)
    kept = np.isfinite(want) & (np.abs(want) < 128)
    return np.abs(got[kept] - want[kept]).max()


def tanh_model(x, form="gelu_tanh"):
    f = np.float32
    x = x.astype(f)
    with np.errstate(over="ignore", invalid="ignore"):
        u = inner(x, form, f)
        return (f(0.5) * x * (f(1) + np.tanh(u))).astype(np.float64)


def on_gpu(lib_path):
    import torch

    for name, x, xt, run, gated in device_cases(lib_path):
        want = round_to(exact(x), name)
        report("gelu_tanh, device code", x, run(6, xt), want, name)
        report("gelu_tanh_and_mul (b = 1), device", x, run(3, gated(x_first=True)), want, name)
        torch_form = torch.nn.functional.gelu(xt, approximate="tanh").double().cpu().numpy()[:x.size]
        report("Torch eager F.gelu(tanh)", x, torch_form, want, name)
        report("gelu_fast, device code", x, run(10, xt), round_to(exact(x, "gelu_fast"), name), name)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lib", help="the probe library: check the device code on the GPU")
    args = parser.parse_args()
    if args.lib:
        on_gpu(args.lib)
        return
    for name in TYPES:
        x = finite_inputs(name)
        for form in ("gelu_tanh", "gelu_fast"):
            want = round_to(exact(x, form), name)
            report(f"{form}: x * sigmoid(2u), model", x, round_to(narrow_model(x, form), name), want, name)
            report(f"{form}: 0.5 x (1 + tanhf(u))", x, round_to(tanh_model(x, form), name), want, name)
            print(f"{name:9} {form}: ex2's argument off by at most 2^{math.log2(argument_error(x, form)):.2f}")


if __name__ == "__main__":
    main()
