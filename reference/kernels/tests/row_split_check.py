#!/usr/bin/env python3
"""Checks the gated kernel's row split (RowSplit32 in
reference/kernels/activation/activation_cuda/activation_kernels.cu) as a
model in Python integers: for a divisor d >= 1, s = ceil(log2 d) and
m = floor(2^32 (2^s - d) / d) + 1, the kernel takes i / d as
(mulhi32(i, m) + i) >> s in 32-bit arithmetic, for every index i < 2^31.

Checked: m fits in 32 bits and the sum never wraps, and the quotient is
exact, for every d in 1..70000 (every row width in packs or elements up to
the size the two-pass rms_norm starts at, and more) and every d = 2^k - 1,
2^k, 2^k + 1 up to 2^31 - 1, each at i = 0, 1, d - 1, d, d + 1, around the
last multiples of d below 2^31, 2^31 - 1, and random i (seeded). Prints one
line per group and exits 1 on the first wrong quotient.

    python3 reference/kernels/tests/row_split_check.py
"""
import random
import sys

LIMIT = 1 << 31  # every index the 32-bit form sees is below this


def split_for(d):
    s = 0
    while (1 << s) < d:
        s += 1
    m = ((1 << 32) * ((1 << s) - d)) // d + 1
    return m, s


def row(i, m, s):
    high = (i * m) >> 32
    total = high + i
    if total >= 1 << 32:
        raise AssertionError(f"sum wraps at i={i}, m={m}")
    return (total & 0xFFFFFFFF) >> s


def indexes(d, rng):
    last = (LIMIT - 1) // d * d
    fixed = {0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, last - 1, last, last + 1, LIMIT - 1}
    fixed.update(rng.randrange(LIMIT) for _ in range(8))
    return sorted(i for i in fixed if 0 <= i < LIMIT)


def check(divisors, rng):
    checked = 0
    for d in divisors:
        m, s = split_for(d)
        if not 0 < m < 1 << 32:
            print(f"d={d}: m={m} does not fit in 32 bits")
            return None
        for i in indexes(d, rng):
            if row(i, m, s) != i // d:
                print(f"d={d} i={i}: {row(i, m, s)} != {i // d}")
                return None
            checked += 1
    return checked


def main():
    rng = random.Random(32)
    groups = {
        "d in 1..70000": range(1, 70001),
        "d = 2^k - 1, 2^k, 2^k + 1 below 2^31": sorted(
            {d for k in range(1, 32) for d in ((1 << k) - 1, 1 << k, (1 << k) + 1) if 1 <= d < LIMIT}
        ),
        "random d below 2^31": [rng.randrange(1, LIMIT) for _ in range(20000)],
    }
    for name, divisors in groups.items():
        checked = check(divisors, rng)
        if checked is None:
            return 1
        print(f"{name}: {len(divisors)} divisors, {checked} quotients exact")
    return 0


if __name__ == "__main__":
    sys.exit(main())
