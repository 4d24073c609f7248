#!/usr/bin/env python3
"""The kcheck command's KE rules and readelf on one large library, paired (issue #16).

    bench/paired_readelf.py [--build _build] [--rounds 21] [FILE]

Each round runs, in an order that alternates between rounds, `readelf -d -V
--dyn-syms FILE` and `kcheck --select KE --format json FILE` (the command a
user runs, start-up included; a module audit of every KE rule), each as one
process timed from the outside, from a warm page cache. Prints per tool the
median [min-max] wall time over the rounds and the ratios kcheck / readelf
within each round, median [min-max]; with the machine and the date.
FILE defaults to the CUDA toolkit's libcublasLt.so.13 (542 MB).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paired import machine_line, spread, wall  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))



def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "_build"))
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("file", nargs="?", default="/usr/local/cuda/lib64/libcublasLt.so.13")
    arguments = parser.parse_args()
    path = os.path.realpath(arguments.file)
    with open(path, "rb") as handle:  # a warm page cache for both
        while handle.read(1 << 24):
            pass
    tools = {"readelf -d -V --dyn-syms": ["readelf", "-d", "-V", "--dyn-syms", path],
             "kcheck --select KE (the command)": [os.path.join(arguments.build, "kcheck"), "--select", "KE", "--format",
                                                  "json", path]}
    names = list(tools)
    times = {name: [] for name in names}
    for round_index in range(arguments.rounds):
        for name in (names if round_index % 2 == 0 else reversed(names)):
            times[name].append(wall(tools[name]))
    print(f"{machine_line()}; file: {os.path.basename(path)} ({os.path.getsize(path) / 1e6:.0f} MB); {arguments.rounds} rounds\n")
    print("| tool | wall ms |")
    print("| --- | ---: |")
    for name in names:
        print(f"| {name} | {spread([t * 1e3 for t in times[name]], 1)} |")
    ratios = [k / r for k, r in zip(times[names[1]], times[names[0]])]
    print(f"\nratios kcheck / readelf, same round: {spread(ratios, 2, 'x')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
