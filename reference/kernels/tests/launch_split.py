"""Where a short op's time goes: the host's cost per call against the device's.

    launch_split.py OPS_SO [--probe LIBPROBE] [--ops gelu,gelu_tanh] [--shape 256x8192]
                    [--dtype float32] [--rounds 5]

At the medium size an activation's kernel runs about 5 us, close to what the
host needs to issue it, so kcheck's timing (a batch of about 2 ms behind
half a millisecond of device sleep, the worker's op_timing.cpp) can measure
either side. For each form (the built op through torch.ops, Torch eager, and
with --probe the probe library's --impls, 0, 36 and 44 unless given, through ctypes) this
prints, per call, medians over the rounds:

  host    the host's time to issue one call while the device sleeps (no back-pressure)
  kcheck  kcheck's way: a batch of ~2 ms behind ~0.5 ms of device sleep
  queued  the device's time per call with the whole batch issued before it wakes
          (the stream's own cost: launch gaps included, the host's excluded)
  graph   the same calls replayed from one CUDA graph (the kernels alone)

If kcheck's figure sits above queued, the host limits it; if queued sits above
graph, the launches' gaps on the device do. Every form writes one output
buffer and reads rotated inputs (twice the L2), as kcheck's worker does.
"""

import argparse
import ctypes
import statistics
import time

import torch
import torch.nn.functional as F

from roofline_probe import time_graph

SLEEP_CYCLES_KCHECK = 1_000_000  # the worker's spacer (about half a millisecond)
SLEEP_CYCLES_DEEP = 60_000_000  # long enough for the host to issue a whole batch


def eager_form(op):
    return {
        "gelu": lambda x: F.gelu(x),
        "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "silu": lambda x: F.silu(x),
        "gelu_quick": lambda x: x * torch.sigmoid(1.702 * x),
    }[op]


PROBE_OP = {"silu": 4, "gelu": 5, "gelu_tanh": 6, "gelu_quick": 7}
PROBE_DTYPE = {"float32": 0, "float16": 1, "bfloat16": 2}


def host_per_call(call, sets, calls):
    torch.cuda.synchronize()
    torch.cuda._sleep(SLEEP_CYCLES_DEEP)
    start = time.perf_counter()
    for k in range(calls):
        call(k % sets)
    elapsed = time.perf_counter() - start
    torch.cuda.synchronize()
    return elapsed / calls * 1e6


def device_per_call(call, sets, calls, sleep_cycles):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    torch.cuda._sleep(sleep_cycles)
    start.record()
    for k in range(calls):
        call(k % sets)
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1e3 / calls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ops_so")
    parser.add_argument("--probe")
    parser.add_argument("--ops", default="gelu,gelu_tanh")
    parser.add_argument("--shape", default="256x8192")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--impls", default="0,36,44", help="the probe's impls to time (with --probe)")
    args = parser.parse_args()

    torch.ops.load_library(args.ops_so)
    namespace = getattr(torch.ops, args.ops_so.rsplit("/", 1)[-1].split(".", 1)[0])
    probe = None
    if args.probe:
        probe = ctypes.CDLL(args.probe)
        i, p, i64 = ctypes.c_int, ctypes.c_void_p, ctypes.c_int64
        probe.probe_act.argtypes = [i, i, i, p, p, i64, i64, p]
        probe.probe_act.restype = ctypes.c_char_p

    rows, d = (int(v) for v in args.shape.split("x"))
    dtype = getattr(torch, args.dtype)
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    nbytes = rows * d * dtype.itemsize
    sets = max(1, min(64, -(-2 * l2 // nbytes)))
    gen = torch.Generator(device="cuda").manual_seed(7)
    xs = [torch.randn(rows, d, device="cuda", dtype=dtype, generator=gen) for _ in range(sets)]
    out = torch.empty(rows, d, device="cuda", dtype=dtype)
    props = torch.cuda.get_device_properties(0)
    print(f"{props.name} torch {torch.__version__}; {args.shape} {args.dtype}, {sets} input sets, "
          f"{args.rounds} rounds; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")

    forms = []
    for op in args.ops.split(","):
        mine = getattr(namespace, op)
        forms.append((op, "ours (torch.ops)", lambda k, mine=mine: mine(out, xs[k])))
        eager = eager_form(op)
        forms.append((op, "torch eager", lambda k, eager=eager: eager(xs[k])))
        if probe is not None:
            for impl in (int(v) for v in args.impls.split(",")):
                def call(k, impl=impl, code=PROBE_OP[op]):
                    error = probe.probe_act(impl, code, PROBE_DTYPE[args.dtype], out.data_ptr(), xs[k].data_ptr(),
                                            rows, d, torch.cuda.current_stream().cuda_stream)
                    if error:
                        raise RuntimeError(error.decode())
                forms.append((op, f"probe impl {impl} (ctypes)", call))

    calls = 300  # about 2 ms of 6-us calls, under the launch queue's depth
    samples = {index: {"host": [], "kcheck": [], "queued": [], "graph": []} for index in range(len(forms))}
    for index, (_, _, call) in enumerate(forms):  # warm-up: every set once
        for k in range(sets):
            call(k)
    torch.cuda.synchronize()
    for _ in range(args.rounds):  # rounds interleave the forms
        for index, (_, _, call) in enumerate(forms):
            s = samples[index]
            s["host"].append(statistics.median(host_per_call(call, sets, calls) for _ in range(5)))
            s["kcheck"].append(statistics.median(
                device_per_call(call, sets, calls, SLEEP_CYCLES_KCHECK) for _ in range(15)))
            s["queued"].append(statistics.median(
                device_per_call(call, sets, calls, SLEEP_CYCLES_DEEP) for _ in range(5)))
            graph = time_graph(call, sets, samples=3, batch=calls)  # None if the capture failed
            if graph is not None:
                s["graph"].append(graph)

    def cell(values):
        if not values:
            return "-"
        return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"

    print("| op | form | host µs | kcheck's way µs | queued µs | graph µs |")
    print("|---|---|---:|---:|---:|---:|")
    for index, (op, name, _) in enumerate(forms):
        s = samples[index]
        print(f"| {op} | {name} | {cell(s['host'])} | {cell(s['kcheck'])} | {cell(s['queued'])} | "
              f"{cell(s['graph'])} |")


if __name__ == "__main__":
    main()
