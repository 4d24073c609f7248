#!/usr/bin/env python3
"""Median with min-max, over several `kcheck bench` reports, of each result.

    speedup_summary.py REPORT.json [REPORT.json ...]

Groups the benchmark results of the reports by op, dtype and shape (one
report per run), and prints per group the number of runs and, as median
[min-max] over the runs, the kernel's median, the eager Torch baseline's
median and the speed-up. Prints nothing it did not read.
"""
import json
import statistics
import sys
from collections import defaultdict


def spread(values, digits):
    return f"{statistics.median(values):.{digits}f} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def main(paths):
    groups = defaultdict(list)
    devices = set()
    for path in paths:
        with open(path) as file:
            dynamic = json.load(file)["dynamic"]
        devices.update(d["name"] for d in dynamic["devices"])
        for result in dynamic["benchmarks"]:
            groups[(result["op"].split("::")[-1], result["dtype"], result["shape"])].append(result)
    print(f"Device: {', '.join(sorted(devices))}; {len(paths)} reports.\n")
    print("| op | dtype | input | runs | kernel µs | Torch eager | eager µs | speed-up |")
    print("|---|---|---|---:|---:|---|---:|---:|")
    for (op, dtype, shape), results in sorted(groups.items()):
        eager = results[0].get("eager") or "-"
        print(f"| {op} | {dtype} | {shape} | {len(results)} | {spread([r['median_us'] for r in results], 1)} "
              f"| `{eager}` | {spread([r.get('eager_median_us', 0) for r in results], 1)} "
              f"| {spread([r['speedup'] for r in results], 2)}x |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    main(sys.argv[1:])
