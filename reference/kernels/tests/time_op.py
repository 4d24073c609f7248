#!/usr/bin/env python3
"""Independent timing of ops with torch.cuda.Event, compared with kcheck bench.

    time_op.py KERNEL_DIR BENCH_REPORT.json OP [OP ...]

For each OP and each of DTYPES (bfloat16, float32) that `kcheck bench`
timed in BENCH_REPORT.json, takes the largest case, imports the variant package found under KERNEL_DIR/build
(importlib, as the Hub loader does), builds inputs of the same shape, and
times the op the way kcheck's worker does, but with Python and
torch.cuda.Event: warm-up, then 30 samples, each a batch of back-to-back
calls lasting about 2 ms between two events queued behind a device sleep,
median per call. Prints both
medians and their difference; exit status 1 when they differ by more than 3%.
Then the same for the op spec's eager Torch baseline that kcheck timed beside
the op (`eager_median_us`), written here in Python as a user writes it
(OPS below): the figure the speed-up is computed from, checked the same way.
Then that baseline compiled here with torch.compile in every mode the report
timed (`compiled`), COMPILES times afresh, each compile timed by kcheck's
helper code and by torch.cuda.Event (must agree within 3%), and kcheck
bench's figure within 3% of the range of these compiles.
"""
import importlib.util
import json
import statistics
import sys
from pathlib import Path

import torch


import torch.nn.functional as F

DTYPES = ("bfloat16", "float32")


class Inputs:
    """The tensors of one case, made from its shape ("ROWSxCOLUMNS") as the op spec describes them."""

    def __init__(self, shape, dtype, gated):
        rows, columns = (int(x) for x in shape.split("x"))
        self.d = columns // 2 if gated else columns
        self.x = torch.rand(rows, columns, device="cuda", dtype=torch.float32).mul_(8).sub_(4).to(dtype)
        self.out = torch.empty(rows, self.d, device="cuda", dtype=dtype)
        self.weight = torch.rand(columns, device="cuda", dtype=torch.float32).add_(0.5).to(dtype)


EPSILON = 1e-6  # reference/ops/rms_norm.toml


# Per op checked here: whether its input is gated (d = columns / 2), the kernel
# call, and the op spec's eager baseline (reference/ops/baseline_forms.cpp)
# written in Python as a user writes it.
OPS = {
    "silu_and_mul": (True, lambda ops, t: ops.silu_and_mul(t.out, t.x), lambda t: F.silu(t.x[..., :t.d]) * t.x[..., t.d:]),
    "gelu_and_mul": (True, lambda ops, t: ops.gelu_and_mul(t.out, t.x), lambda t: F.gelu(t.x[..., :t.d]) * t.x[..., t.d:]),
    "relu": (False, lambda ops, t: ops.relu(t.out, t.x), lambda t: torch.relu(t.x)),
    "rms_norm": (False, lambda ops, t: ops.rms_norm(t.out, t.x, t.weight, EPSILON),
                 lambda t: F.rms_norm(t.x, (t.d,), t.weight, EPSILON)),
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
        # Device sleep ahead of the start event: Python queues the first calls
        # meanwhile, so its latency to issue them is not timed as device time.
        torch.cuda._sleep(1_000_000)
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
        gated, kernel, eager_form = OPS[op]
        for dtype in DTYPES:
            timed = [b for b in report["dynamic"]["benchmarks"]
                     if b["op"].endswith("::" + op) and b["dtype"] == dtype and b["variant"] == variant_name]
            if not timed:
                print(f"{op}: no {dtype} result in {report_path}")
                status = 1
                continue
            result = max(timed, key=lambda b: b["bytes"])
            label = f"{op} {dtype} [{result['shape']}]"
            t = Inputs(result["shape"], getattr(torch, dtype), gated)
            ours, batch = median_us(lambda: kernel(package.ops, t))
            difference = 100 * (result["median_us"] - ours) / ours
            verdict = "agree" if abs(difference) <= 3 else "DISAGREE"
            print(f"{label}: kcheck bench {result['median_us']:.1f} us, "
                  f"torch.cuda.Event {ours:.1f} us (batch {batch}): {difference:+.2f}% -> {verdict} within 3%")
            status |= abs(difference) > 3
            if result.get("eager_median_us", 0) > 0:
                eager, batch = median_us(lambda: eager_form(t))
                difference = 100 * (result["eager_median_us"] - eager) / eager
                verdict = "agree" if abs(difference) <= 3 else "DISAGREE"
                print(f"{label} eager {result['eager']}: kcheck bench "
                      f"{result['eager_median_us']:.1f} us, torch.cuda.Event {eager:.1f} us (batch {batch}): "
                      f"{difference:+.2f}% -> {verdict} within 3%; speed-up {result['speedup']:.2f}x "
                      f"(Python's figures: {eager / ours:.2f}x)")
                status |= abs(difference) > 3
                status |= check_compiled(label, result, t, eager_form)
            else:
                print(f"{label}: kcheck bench timed no eager baseline: {result.get('eager_problem', '')}")
                status = 1
    return status


# Independent compiles per mode. Inductor tunes a pointwise kernel's launch
# configuration by timing candidates at its first call (more of them under
# max-autotune), so two compiles of one expression could differ. Each of
# COMPILES fresh compiles is timed twice, by kcheck's own helper code
# (checker/harness/compile_baselines.py's time_calls, as kcheck bench runs it)
# and by this script's torch.cuda.Event loop, which must agree within 3%; and
# kcheck's figure from its own run must lie within 3% of the range of these.
# (Before both timers queued their start event behind a device sleep, a
# compiled function's Python latency to issue its first call was timed as
# device time: 270-294 us for one compile of silu_and_mul on an H100.)
COMPILES = 3


def kcheck_helper():
    path = Path(__file__).resolve().parents[3] / "checker" / "harness" / "compile_baselines.py"
    spec = importlib.util.spec_from_file_location("kcheck_compile_baselines", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_compiled(case_label, result, t, eager_form):
    """1 when kcheck's helper and torch.cuda.Event time a compile more than 3% apart, kcheck bench's
    figure lies more than 3% outside the range of the compiles here, or kcheck timed no figure to check."""
    import torch._inductor.config as inductor
    # Every compile here starts afresh: no FX graph or tuning result reused from the one before.
    inductor.fx_graph_cache = False
    inductor.autotune_local_cache = False
    helper = kcheck_helper()
    timer = helper.Timer(torch, t.x.device)
    status = 0
    for mode in result.get("compiled", []):
        label = f"{case_label} torch.compile {mode['mode']}"
        if not mode["median_us"] > 0:
            # The report says why (never a silent gap), but nothing was checked: not a pass.
            print(f"{label}: not timed by kcheck, so not checked: {mode['problem']}")
            status = 1
            continue
        events = []
        for attempt in range(COMPILES):
            torch._dynamo.reset()
            compiled = torch.compile(lambda: eager_form(t), mode=mode["mode"], dynamic=False)
            mine, batch = median_us(compiled)
            helpers, _ = helper.time_calls(timer, lambda i: compiled(), 1, 30, 2e-3)
            helpers *= 1e6
            difference = 100 * (helpers - mine) / mine
            verdict = "agree" if abs(difference) <= 3 else "DISAGREE"
            print(f"{label} compile {attempt + 1}: kcheck's helper {helpers:.1f} us, torch.cuda.Event {mine:.1f} us "
                  f"(batch {batch}): {difference:+.2f}% -> {verdict} within 3%")
            status |= abs(difference) > 3
            events.append(mine)
        low, high = min(events), max(events)
        ours = mode["median_us"]
        outside = 100 * (ours / high - 1) if ours > high else 100 * (ours / low - 1) if ours < low else 0.0
        verdict = "agree" if abs(outside) <= 3 else "DISAGREE"
        print(f"{label}: kcheck bench's compile {ours:.1f} us, {outside:+.2f}% outside the range of {COMPILES} "
              f"compiles here ({low:.1f}-{high:.1f} us, {100 * (high / low - 1):.1f}% apart) -> {verdict} within 3%")
        status |= abs(outside) > 3
    return status


if __name__ == "__main__":
    sys.exit(main())
