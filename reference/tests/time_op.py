#!/usr/bin/env python3
"""Independent timing of ops with torch.cuda.Event, compared with kcheck bench.

    time_op.py KERNEL_DIR BENCH_REPORT.json OP [OP ...]

For each OP, takes the largest bfloat16 case that `kcheck bench` timed in
BENCH_REPORT.json, imports the variant package found under KERNEL_DIR/build
(importlib, as the Hub loader does), builds inputs of the same shape, and
times the op the way kcheck's worker does, but with Python and
torch.cuda.Event: warm-up, then 30 samples, each a batch of back-to-back
calls lasting about 2 ms between two events, median per call. Prints both
medians and their difference; exit status 1 when they differ by more than 3%.
Then the same for the op spec's eager Torch baseline that kcheck timed beside
the op (`eager_median_us`), written here in Python as a user writes it
(EAGER below): the figure the speed-up is computed from, checked the same way.
Then that baseline compiled here with torch.compile in every mode the report
timed (`compiled`), against kcheck's helper's figure for the mode, the same way.
"""
import importlib.util
import json
import statistics
import sys
from pathlib import Path

import torch


import torch.nn.functional as F

# The baselines of reference/ops/*.toml as Python, for the ops checked here.
EAGER = {
    "silu_and_mul": lambda x, d: F.silu(x[..., :d]) * x[..., d:],
    "gelu_and_mul": lambda x, d: F.gelu(x[..., :d]) * x[..., d:],
}


def import_variant(kernel_dir):
    variants = sorted(p for p in (Path(kernel_dir) / "build").iterdir() if "-cu" in p.name)
    variant = variants[0]
    name = "time_op_" + variant.name.replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, variant / "__init__.py",
                                                  submodule_search_locations=[str(variant)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return variant.name, module


def median_us(call, target_seconds=2e-3, samples=30):
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    call()
    stop.record()
    stop.synchronize()
    batch = max(1, int(target_seconds / (start.elapsed_time(stop) / 1e3) + 0.999))
    times = []
    for _ in range(samples):
        start.record()
        for _ in range(batch):
            call()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3 / batch)
    return statistics.median(times), batch


def main():
    kernel_dir, report_path, ops = sys.argv[1], sys.argv[2], sys.argv[3:]
    report = json.loads(Path(report_path).read_text())
    variant_name, package = import_variant(kernel_dir)
    status = 0
    for op in ops:
        timed = [b for b in report["dynamic"]["benchmarks"]
                 if b["op"].endswith("::" + op) and b["dtype"] == "bfloat16" and b["variant"] == variant_name]
        if not timed:
            print(f"{op}: no bfloat16 result in {report_path}")
            status = 1
            continue
        result = max(timed, key=lambda b: b["bytes"])
        rows, columns = (int(x) for x in result["shape"].split("x"))
        x = torch.rand(rows, columns, device="cuda", dtype=torch.float32).mul_(8).sub_(4).to(torch.bfloat16)
        out = torch.empty(rows, columns // 2, device="cuda", dtype=torch.bfloat16)
        function = getattr(package.ops, op)
        ours, batch = median_us(lambda: function(out, x))
        difference = 100 * (result["median_us"] - ours) / ours
        verdict = "agree" if abs(difference) <= 3 else "DISAGREE"
        print(f"{op} bfloat16 [{result['shape']}]: kcheck bench {result['median_us']:.1f} us, "
              f"torch.cuda.Event {ours:.1f} us (batch {batch}): {difference:+.2f}% -> {verdict} within 3%")
        status |= abs(difference) > 3
        if op in EAGER and result.get("eager_median_us", 0) > 0:
            eager, batch = median_us(lambda: EAGER[op](x, columns // 2))
            difference = 100 * (result["eager_median_us"] - eager) / eager
            verdict = "agree" if abs(difference) <= 3 else "DISAGREE"
            print(f"{op} bfloat16 [{result['shape']}] eager {result['eager']}: kcheck bench "
                  f"{result['eager_median_us']:.1f} us, torch.cuda.Event {eager:.1f} us (batch {batch}): "
                  f"{difference:+.2f}% -> {verdict} within 3%; speed-up {result['speedup']:.2f}x "
                  f"(Python's figures: {eager / ours:.2f}x)")
            status |= abs(difference) > 3
            status |= check_compiled(op, result, x, columns // 2)
    return status


def check_compiled(op, result, x, d):
    """1 when a mode kcheck timed differs from this script's timing of it by more than 3%."""
    status = 0
    for mode in result.get("compiled", []):
        if not mode["median_us"] > 0:
            print(f"{op} bfloat16 [{result['shape']}] torch.compile {mode['mode']}: not timed by kcheck: {mode['problem']}")
            continue
        torch._dynamo.reset()
        compiled = torch.compile(lambda x: EAGER[op](x, d), mode=mode["mode"], dynamic=False)
        mine, batch = median_us(lambda: compiled(x))
        difference = 100 * (mode["median_us"] - mine) / mine
        verdict = "agree" if abs(difference) <= 3 else "DISAGREE"
        print(f"{op} bfloat16 [{result['shape']}] torch.compile {mode['mode']}: kcheck bench {mode['median_us']:.1f} us, "
              f"torch.cuda.Event {mine:.1f} us (batch {batch}): {difference:+.2f}% -> {verdict} within 3%")
        status |= abs(difference) > 3
    return status


if __name__ == "__main__":
    sys.exit(main())
