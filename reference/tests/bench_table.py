#!/usr/bin/env python3
"""Markdown table of `kcheck bench` JSON reports (for bench/RESULTS.md).

    bench_table.py REPORT.json [REPORT.json ...]
"""
import json
import sys
from pathlib import Path


def main():
    rows = []
    devices = {}
    failed_checks = checks = 0
    for path in sys.argv[1:]:
        report = json.loads(Path(path).read_text())
        dynamic = report.get("dynamic", {})
        for device in dynamic.get("devices", []):
            devices[device["name"]] = device["copy_bandwidth_gbs"]
        checks += len(dynamic.get("op_checks", []))
        failed_checks += sum(not c["passed"] for c in dynamic.get("op_checks", []))
        rows += dynamic.get("benchmarks", [])
    for name, gbs in devices.items():
        print(f"Device: {name}; measured device-to-device copy bandwidth {gbs:.0f} GB/s.  ")
    print(f"Op checks: {checks}, failed: {failed_checks}.\n")
    print("| op | dtype | input | median µs | IQR µs | GB/s | % of copy BW | Torch eager | eager µs | speed-up |")
    print("|---|---|---|---:|---:|---:|---:|---|---:|---:|")
    for r in sorted(rows, key=lambda r: (r["op"].split("::")[-1], r["dtype"], r["bytes"])):
        print(f"| {r['op'].split('::')[-1]} | {r['dtype']} | {r['shape']} | {r['median_us']:.1f} | {r['spread_us']:.1f} "
              f"| {r['achieved_gbs']:.0f} | {r['percent_of_peak']:.1f} | `{r.get('eager') or '-'}` "
              f"| {r.get('eager_median_us', 0):.1f} | {r['speedup']:.2f}x |")


if __name__ == "__main__":
    main()
