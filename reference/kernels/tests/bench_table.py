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
    print("| op | dtype | input | median µs | IQR µs | GB/s | % of copy BW | Torch eager | eager µs | × eager "
          "| compiled µs | mode | × compiled |")
    print("|---|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|---:|")
    problems = {}
    for r in sorted(rows, key=lambda r: (r["op"].split("::")[-1], r["dtype"], r["bytes"])):
        compiled, mode, speedup = fastest_compiled(r, problems)
        print(f"| {r['op'].split('::')[-1]} | {r['dtype']} | {r['shape']} | {r['median_us']:.1f} | {r['spread_us']:.1f} "
              f"| {r['achieved_gbs']:.0f} | {r['percent_of_peak']:.1f} | `{r.get('eager') or '-'}` "
              f"| {r.get('eager_median_us', 0):.1f} | {r['speedup']:.2f}x | {compiled} | {mode} | {speedup} |")
    for problem, count in sorted(problems.items()):
        print(f"\ntorch.compile {problem} ({count} rows)")


def fastest_compiled(result, problems):
    """(median µs, mode, speed-up) of the fastest timed torch.compile mode, or dashes; counts why a mode was not timed."""
    timed = [m for m in result.get("compiled", []) if m["median_us"] > 0]
    for mode in result.get("compiled", []):
        if mode.get("problem"):
            problems[f"{mode['mode']}: {mode['problem']}"] = problems.get(f"{mode['mode']}: {mode['problem']}", 0) + 1
    if result.get("compiled_problem"):
        problems[result["compiled_problem"]] = problems.get(result["compiled_problem"], 0) + 1
    if not timed:
        return "-", "-", "-"
    best = min(timed, key=lambda m: m["median_us"])
    return f"{best['median_us']:.1f}", best["mode"], f"{result['compile_speedup']:.2f}x"


if __name__ == "__main__":
    main()
