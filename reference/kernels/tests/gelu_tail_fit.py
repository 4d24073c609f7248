#!/usr/bin/env python3
"""Where GeluErfNarrow's polynomial comes from, and how close it is (issue #32).

    gelu_tail_fit.py [--degree 10] [--fit]

The activation kernels compute exact GELU for float16/bfloat16 outputs as
gelu(x) = max(x, 0) - |x| * Q(|x|), with the normal tail Q(a) = erfc(a/sqrt(2))/2
taken as 2^P(a), P a polynomial in a = |x| clamped to 14.2
(reference/kernels/activation/activation_cuda/activation_kernels.cu).

--fit refits P: weighted minimax (Lawson's iteration on least squares, in a
Chebyshev basis) of log2 Q on [0, 14.2], the weight Q * ln 2 (so the error
measured is the absolute error of Phi = 1 - Q), floored at 1e-12 so that P
keeps falling past a = 6, where Q no longer matters, down to 2^P(14.2) = 0
in float. Without --fit, the coefficients are read from the kernel source.
Either way it prints, with P evaluated as the kernel does (float32 Horner
with one rounding per fma) and 2^P exact (the GPU's ex2.approx adds up to
about 2 ulp): the largest error of Phi, Q's largest relative error for
a <= 4, whether P falls monotonically, P(14.2); and, over every finite
float16 and bfloat16 input, how many results differ from the exact GELU
rounded to the same type, where, and by how many ulps, and the largest
error before rounding where x < 0 (the tail). Needs numpy.
"""
import argparse
import math
import pathlib
import re
import sys

import numpy as np

from sixteen_bit import TYPES, finite_inputs, round_to, ulp_distance

A = 14.2
KERNEL = pathlib.Path(__file__).resolve().parents[1] / "activation/activation_cuda/activation_kernels.cu"


def log2_tail(a):
    return np.array([math.log2(0.5 * math.erfc(v / math.sqrt(2))) for v in a])


def fit(degree, points=4000, iterations=200, floor=1e-12):
    a = np.linspace(0, A, points)
    y = log2_tail(a)
    weight = np.maximum(2.0**y * math.log(2), floor)
    basis = np.polynomial.chebyshev.chebvander(2 * a / A - 1, degree)
    lawson = np.ones_like(a)
    for _ in range(iterations):
        w = weight * np.sqrt(lawson)
        c, *_ = np.linalg.lstsq(basis * w[:, None], y * w, rcond=None)
        lawson *= np.abs(basis @ c - y) * weight
        lawson /= lawson.sum()
    monomial = np.polynomial.Chebyshev(c, domain=[0, A]).convert(kind=np.polynomial.Polynomial).coef
    return [float(np.float32(v)) for v in monomial]  # lowest degree first


def kernel_coefficients():
    """The coefficients of GeluErfNarrow, lowest degree first."""
    body = KERNEL.read_text().split("struct GeluErfNarrow", 1)[1].split("};", 1)[0]
    first = re.search(r"float p = ([-+0-9.e]+)f;", body).group(1)
    rest = re.findall(r"p = fmaf\(p, a, ([-+0-9.e]+)f\);", body)
    return [float(v) for v in reversed([first] + rest)]


def f32(v):
    return np.asarray(v, dtype=np.float64).astype(np.float32)


def tail_p(c, x):
    """P(min(|x|, A)) in float32 as the kernel's Horner loop computes it, and the clamped |x|."""
    a = np.minimum(np.abs(f32(x)), np.float32(A))
    p = np.full_like(a, np.float32(c[-1]))
    for k in reversed(c[:-1]):  # a product of two float32 is exact in float64: one rounding per fma
        p = f32(p.astype(np.float64) * a + np.float64(np.float32(k)))
    return p, a


def gelu_narrow(c, x):
    p, a = tail_p(c, x)
    with np.errstate(under="ignore", over="ignore"):
        q = f32(np.exp2(p.astype(np.float64)))
    return f32(-a.astype(np.float64) * q + np.maximum(f32(x), 0).astype(np.float64))


def gelu_exact(x):
    return np.array([0.5 * v * math.erfc(-v / math.sqrt(2)) for v in np.asarray(x, dtype=np.float64)])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--degree", type=int, default=10)
    parser.add_argument("--fit", action="store_true", help="refit P instead of reading the kernel's coefficients")
    args = parser.parse_args()
    c = fit(args.degree) if args.fit else kernel_coefficients()
    print("P's coefficients, lowest degree first:", ", ".join(f"{v:.9e}" for v in c))
    a = np.linspace(0, A, 20001)
    p, _ = tail_p(c, a)
    q = 2.0 ** p.astype(np.float64)
    exact_q = 2.0 ** log2_tail(a)
    near = a <= 4
    print(f"largest error of Phi on [0, {A}]: {np.max(np.abs(q - exact_q)):.2e}")
    print(f"Q's largest relative error for a <= 4: {np.max(np.abs(q[near] / exact_q[near] - 1)):.2e}")
    print(f"P falls monotonically on [0, {A}]: {bool(np.all(np.diff(p) <= 0))}; P({A}) = {p[-1]:.1f}")
    for name in TYPES:
        x = finite_inputs(name)
        ours, exact = gelu_narrow(c, x), gelu_exact(x)
        distance = ulp_distance(round_to(ours, name), round_to(exact, name), name)
        differ = distance != 0
        where = (f"x in [{x[differ].min():.4g}, {x[differ].max():.4g}], |gelu| <= "
                 f"{np.abs(exact[differ]).max():.2e}, at most {distance.max()} ulp" if differ.any() else "")
        negative = x < 0
        print(f"{name}: {x.size} finite inputs, {int(differ.sum())} differ from the exact GELU rounded to "
              f"{name}{': ' + where if where else ''}; before rounding, the largest |error| for x < 0 is "
              f"{np.max(np.abs(ours[negative] - exact[negative])):.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
