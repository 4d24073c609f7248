#!/usr/bin/env python3
"""Issue #32's probe: launch shapes of the reference kernels against Torch.

    roofline_probe.py LIBPROBE.so [--quick] [--ncu] [--json FILE]

Loads the library roofline_probe.sh builds (the reference kernels' device
code, the working tree's and an earlier commit's, no Torch) with ctypes and,
on the same buffers, times each op and launch shape (`impl`, see
roofline_probe.cu) against Torch eager, torch.compile (default mode, large
size only) and a device-to-device copy of 1 GiB (the roofline kcheck bench
uses). Timing as kcheck's worker does it: buffer sets rotated so that
consecutive calls miss the L2, warm-up, batches of about 2 ms behind a
device sleep, 30 samples, the median per call; at every size but the large,
also the same batch captured in a CUDA graph (device time without the host's
per-call cost), Torch eager's too for relu (its own row) and the activations
(the eager row's graph column), not for rms_norm. Every impl's output is
first checked against Torch. Prints one table; --json writes the rows.
--same-out (activation): also each impl writing every call into one output
buffer, and Torch eager writing into the rotated outputs or into one (the
elementwise ops' out= forms): Torch's result is a fresh allocation, which
the caching allocator hands the same block each call, while the op's `out`
rotates with the inputs. --ncu: run each production kernel (and the old one)
once at the large size in bfloat16, for `ncu --section
MemoryWorkloadAnalysis` to profile.

Exploration only: the figures to publish come from `scripts/gpu-check.sh
repeat` (kcheck bench), never from here.
"""
import argparse
import ctypes
import json
import logging
import math
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

DTYPES = {"float32": (0, torch.float32), "float16": (1, torch.float16), "bfloat16": (2, torch.bfloat16)}
TOL = {"float32": 2e-5, "float16": 2e-3, "bfloat16": 1.6e-2}
# Op specs' sizes (reference/ops/*.toml): (rows, d); gated input is rows x 2d.
SIZES = {
    "relu": {"large": (16384, 8192), "medium": (256, 4096)},
    "rms_norm": {"large": (16384, 8192), "medium": (512, 4096)},
    "gated": {"large": (16384, 8192), "medium": (256, 4096)},
    "elementwise": {"large": (16384, 16384), "medium": (256, 8192)},
}


def shape_of(kind, size):
    """A named size's (rows, d) of this kind of op, or ROWSxD given literally (e.g. 512x8192)."""
    if size in SIZES[kind]:
        return SIZES[kind][size]
    rows, d = size.split("x")
    return int(rows), int(d)


ACT_OPS = {  # name: (probe op, gated, torch form)
    "silu_and_mul": (0, True, lambda x, d: F.silu(x[..., :d]) * x[..., d:]),
    "mul_and_silu": (11, True, lambda x, d: x[..., :d] * F.silu(x[..., d:])),
    "gelu_and_mul": (1, True, lambda x, d: F.gelu(x[..., :d]) * x[..., d:]),
    "fatrelu_and_mul": (2, True, lambda x, d: torch.where(x[..., :d] > 0.5, x[..., :d], 0) * x[..., d:]),
    "gelu_tanh_and_mul": (3, True, lambda x, d: F.gelu(x[..., :d], approximate="tanh") * x[..., d:]),
    "silu": (4, False, lambda x, d: F.silu(x)),
    "gelu": (5, False, lambda x, d: F.gelu(x)),
    "gelu_tanh": (6, False, lambda x, d: F.gelu(x, approximate="tanh")),
    "gelu_quick": (7, False, lambda x, d: x * torch.sigmoid(1.702 * x)),
    "mul_gate(no math)": (8, True, lambda x, d: x[..., :d] * x[..., d:]),
    "identity(no math)": (9, False, lambda x, d: x.clone()),
}
# The elementwise ops' Torch forms writing into a given output (aten's out= overloads), for --same-out.
OUT_FORMS = {
    "silu": lambda x, o: torch.ops.aten.silu.out(x, out=o),
    "gelu": lambda x, o: torch.ops.aten.gelu.out(x, out=o),
    "gelu_tanh": lambda x, o: torch.ops.aten.gelu.out(x, approximate="tanh", out=o),
}
SAME_OUT = [False]
EPS = 1e-6


def load(path):
    lib = ctypes.CDLL(path)
    p, i, i64, d = ctypes.c_void_p, ctypes.c_int, ctypes.c_int64, ctypes.c_double
    lib.probe_relu.argtypes = [i, i, p, p, i64, p]
    lib.probe_act.argtypes = [i, i, i, p, p, i64, i64, p]
    lib.probe_rms.argtypes = [i, i, p, p, p, i64, i, d, p]
    for f in (lib.probe_relu, lib.probe_act, lib.probe_rms):
        f.restype = ctypes.c_char_p
    return lib


CURRENT = [None]  # the stream the probe's launches go to (the capture stream inside a graph)


def stream():
    return CURRENT[0]


def set_stream():
    CURRENT[0] = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)


def checked(error):
    if error:
        raise RuntimeError(error.decode())


def rotation(bytes_per_call):
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    return max(1, min(64, math.ceil(2 * l2 / max(bytes_per_call, 1))))


def time_stream(call, sets, samples=30, target=2e-3):
    """kcheck's worker's way: rotate, warm up, batches of ~2 ms behind a device sleep, median per call."""
    set_stream()
    n = 0
    for _ in range(sets):
        call(n % sets); n += 1
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(sets):
        call(n % sets); n += 1
    stop.record(); stop.synchronize()
    batch = max(1, min(10000, math.ceil(target / (start.elapsed_time(stop) / 1e3 / sets))))
    times = []
    for _ in range(samples):
        torch.cuda._sleep(1_000_000)
        start.record()
        for _ in range(batch):
            call(n % sets); n += 1
        stop.record(); stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3 / batch)
    return statistics.median(times)


def time_graph(call, sets, samples=30, batch=200):
    """The same calls captured in one CUDA graph: device time without the host's per-call cost."""
    try:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            set_stream()
            for k in range(sets):
                call(k)
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, capture_error_mode="thread_local"):
            set_stream()
            for k in range(batch):
                call(k % sets)
        set_stream()
        graph.replay(); torch.cuda.synchronize()
    except RuntimeError as e:
        set_stream()
        print(f"(graph capture failed: {str(e).splitlines()[0]})", flush=True)
        return None
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(samples):
        start.record(); graph.replay(); stop.record(); stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3 / batch)
    return statistics.median(times)


def close(out, ref, dtype_name):
    tol = TOL[dtype_name]
    return torch.allclose(out.float(), ref.float(), rtol=tol, atol=tol)


class Table:
    def __init__(self, copy_gbs):
        self.rows = []
        self.copy_gbs = copy_gbs

    def add(self, op, dtype, size, shape, impl, us, bytes_, best_torch=None, graph_us=None, ok=True):
        gbs = bytes_ / us / 1e3
        row = dict(op=op, dtype=dtype, size=size, shape=shape, impl=impl, us=round(us, 2), gbs=round(gbs),
                   pct_copy=round(100 * gbs / self.copy_gbs, 1), vs_torch=round(best_torch / us, 3) if best_torch else None,
                   graph_us=round(graph_us, 2) if graph_us else None, ok=ok)
        self.rows.append(row)
        print(f"| {op} | {dtype} | {size} {shape} | {impl} | {us:.1f} | {row['pct_copy']:.1f} | "
              f"{row['vs_torch'] if row['vs_torch'] else '-'} | {row['graph_us'] or '-'} | {'ok' if ok else 'WRONG'} |",
              flush=True)


COMPILE = {"modes": ["default"], "dtypes": {"relu": ["bfloat16"], "other": ["float32", "bfloat16"]}}


def compiled_us(fn, sets, call_args, table=None, row=None):
    """The fastest of the torch.compile modes in COMPILE["modes"]; with a table, one row per mode."""
    best = None
    for mode in COMPILE["modes"]:
        torch._dynamo.reset()
        c = torch.compile(fn, mode=mode, dynamic=False)
        us = time_stream(lambda k: c(*call_args(k)), sets)
        if table is not None and len(COMPILE["modes"]) > 1:
            table.add(*row[:4], f"torch.compile {mode}", us, row[4])
        best = us if best is None else min(best, us)
    return best


def bench_relu(lib, table, sizes, dtypes, impls, compile_large):
    for size in sizes:
        rows, d = shape_of("relu", size)
        for name in dtypes:
            code, dt = DTYPES[name]
            nbytes = 2 * rows * d * dt.itemsize
            sets = rotation(nbytes)
            xs = [torch.rand(rows, d, device="cuda").mul_(8).sub_(4).to(dt) for _ in range(sets)]
            outs = [torch.empty_like(x) for x in xs]
            eager = time_stream(lambda k: torch.relu(xs[k]), sets)
            best = eager
            table.add("relu", name, size, f"{rows}x{d}", "torch eager", eager, nbytes)
            if compile_large and size == "large" and name in COMPILE["dtypes"]["relu"]:
                c = compiled_us(lambda x: torch.relu(x), sets, lambda k: (xs[k],), table,
                                ("relu", name, size, f"{rows}x{d}", nbytes))
                table.add("relu", name, size, f"{rows}x{d}", "torch.compile", c, nbytes)
                best = min(best, c)
            graph_eager = time_graph(lambda k: torch.relu(xs[k]), sets) if size != "large" else None
            if graph_eager:
                table.add("relu", name, size, f"{rows}x{d}", "torch eager (graph)", graph_eager, nbytes)
            for impl in impls:
                call = lambda k: checked(lib.probe_relu(impl, code, outs[k].data_ptr(), xs[k].data_ptr(), rows * d, stream()))
                call(0)
                ok = torch.equal(outs[0], torch.relu(xs[0]))
                us = time_stream(call, sets)
                g = time_graph(call, sets) if size != "large" else None
                table.add("relu", name, size, f"{rows}x{d}", f"impl {impl}", us, nbytes, best, g, ok)


def bench_act(lib, table, ops, sizes, dtypes, impls, compile_large):
    for op in ops:
        code, gated, form = ACT_OPS[op]
        for size in sizes:
            rows, d = shape_of("gated" if gated else "elementwise", size)
            for name in dtypes:
                dcode, dt = DTYPES[name]
                cols_in = 2 * d if gated else d
                nbytes = (rows * cols_in + rows * d) * dt.itemsize
                sets = rotation(nbytes)
                xs = [torch.rand(rows, cols_in, device="cuda").mul_(8).sub_(4).to(dt) for _ in range(sets)]
                outs = [torch.empty(rows, d, device="cuda", dtype=dt) for _ in range(sets)]
                eager = time_stream(lambda k: form(xs[k], d), sets)
                best = eager
                shape = f"{rows}x{cols_in}"
                g = time_graph(lambda k: form(xs[k], d), sets) if size != "large" else None
                table.add(op, name, size, shape, "torch eager", eager, nbytes, None, g)
                if SAME_OUT[0] and op in OUT_FORMS:
                    into = OUT_FORMS[op]
                    table.add(op, name, size, shape, "torch eager, out= rotated",
                              time_stream(lambda k: into(xs[k], outs[k]), sets), nbytes)
                    table.add(op, name, size, shape, "torch eager, out= one buffer",
                              time_stream(lambda k: into(xs[k], outs[0]), sets), nbytes)
                if compile_large and size == "large" and name in COMPILE["dtypes"]["other"]:
                    c = compiled_us(lambda x: form(x, d), sets, lambda k: (xs[k],), table,
                                    (op, name, size, shape, nbytes))
                    table.add(op, name, size, shape, "torch.compile", c, nbytes)
                    best = min(best, c)
                ref = form(xs[0].double(), d)
                for impl in impls:
                    call = lambda k: checked(lib.probe_act(impl, code, dcode, outs[k].data_ptr(), xs[k].data_ptr(),
                                                           rows, d, stream()))
                    set_stream()
                    try:
                        call(0)
                    except RuntimeError:
                        continue  # no such form of this op
                    ok = close(outs[0], ref, name)
                    us = time_stream(call, sets)
                    g = time_graph(call, sets) if size != "large" else None
                    table.add(op, name, size, shape, f"impl {impl}", us, nbytes, best, g, ok)
                    if SAME_OUT[0]:
                        one = lambda k: checked(lib.probe_act(impl, code, dcode, outs[0].data_ptr(), xs[k].data_ptr(),
                                                              rows, d, stream()))
                        us = time_stream(one, sets)
                        g = time_graph(one, sets) if size != "large" else None
                        table.add(op, name, size, shape, f"impl {impl}, one out", us, nbytes, best, g, ok)


def bench_rms(lib, table, sizes, dtypes, impls, compile_large):
    for size in sizes:
        rows, d = shape_of("rms_norm", size)
        for name in dtypes:
            code, dt = DTYPES[name]
            nbytes = (2 * rows * d + d) * dt.itemsize
            sets = rotation(nbytes)
            xs = [torch.rand(rows, d, device="cuda").mul_(8).sub_(4).to(dt) for _ in range(sets)]
            ws = [torch.rand(d, device="cuda").add_(0.5).to(dt) for _ in range(sets)]
            outs = [torch.empty_like(x) for x in xs]
            form = lambda x, w: F.rms_norm(x, (d,), w, EPS)
            eager = time_stream(lambda k: form(xs[k], ws[k]), sets)
            best = eager
            shape = f"{rows}x{d}"
            table.add("rms_norm", name, size, shape, "torch eager", eager, nbytes)
            if compile_large and size == "large" and name in COMPILE["dtypes"]["other"]:
                c = compiled_us(form, sets, lambda k: (xs[k], ws[k]), table, ("rms_norm", name, size, shape, nbytes))
                table.add("rms_norm", name, size, shape, "torch.compile", c, nbytes)
                best = min(best, c)
            ref = form(xs[0].double(), ws[0].double())
            for impl in impls:
                call = lambda k: checked(lib.probe_rms(impl, code, outs[k].data_ptr(), xs[k].data_ptr(), ws[k].data_ptr(),
                                                       rows, d, EPS, stream()))
                call(0)
                ok = close(outs[0], ref, name)
                us = time_stream(call, sets)
                g = time_graph(call, sets) if size != "large" else None
                table.add("rms_norm", name, size, shape, f"impl {impl}", us, nbytes, best, g, ok)


def device_state():
    """The device's temperatures, clocks and power now, as nvidia-smi reports them."""
    query = "temperature.gpu,temperature.memory,clocks.sm,clocks.mem,power.draw"
    try:
        done = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=10)
        return f"{query}: {done.stdout.strip()}"
    except (OSError, subprocess.SubprocessError) as error:
        return f"nvidia-smi: {error}"


def drift_study(lib, busy_seconds, idle_seconds, cycles=2):
    """Does one kernel's time depend on what the device did before it? kcheck
    bench times the kernels in its worker, back to back for minutes, and the
    compiled forms afterwards in another process, each after its compile (the
    device idle for seconds). relu float32 at 16384 x 8192 (the launcher, impl
    0, into an output allocated after the input and into one allocated before
    it) and torch.relu, timed after idling and after `busy_seconds` of
    back-to-back relu, `cycles` times, with the device's temperatures."""
    rows, d = 16384, 8192
    code = DTYPES["float32"][0]
    before = torch.empty(rows, d, device="cuda")
    x = torch.rand(rows, d, device="cuda").sub_(0.5)
    after = torch.empty_like(x)
    ours = lambda out: (lambda k: checked(lib.probe_relu(0, code, out.data_ptr(), x.data_ptr(), rows * d, stream())))

    def report(label):
        times = [time_stream(ours(after), 1), time_stream(ours(before), 1), time_stream(lambda k: torch.relu(x), 1)]
        print(f"drift, {label}: ours {times[0]:.1f} us (output allocated after the input, at input "
              f"{after.data_ptr() - x.data_ptr():+d} B), {times[1]:.1f} (before it, at "
              f"{before.data_ptr() - x.data_ptr():+d} B), torch.relu {times[2]:.1f}; {device_state()}", flush=True)

    for cycle in range(cycles):
        torch.cuda.synchronize()
        time.sleep(idle_seconds)
        report(f"cycle {cycle}, after {idle_seconds} s idle")
        end = time.time() + busy_seconds
        while time.time() < end:
            for _ in range(200):
                ours(after)(0)
            torch.cuda.synchronize()
        report(f"cycle {cycle}, after {busy_seconds} s of relu")


def paired_study(lib, ops, dtypes):
    """Ours and torch.compile on the same buffers: for each op (relu, rms_norm or
    an ACT_OPS name) and dtype at the large size, in each mode of COMPILE, the
    compiled form timed, then the launcher (impl 0) into the very block the
    compiled calls wrote their result to (the caching allocator hands it to
    every call), then into a buffer of its own allocated after the input, then
    the compiled form again. kcheck bench times the two in different
    processes, where the output lands elsewhere relative to the input; the
    drift study showed that alone moving the same kernel by 0.2%."""
    for op in ops:
        for name in dtypes:
            dcode, dt = DTYPES[name]
            if op == "relu":
                rows, d = SIZES["relu"]["large"]
                cols_in, form = d, lambda x, w: torch.relu(x)
                ours = lambda out, x, w: lib.probe_relu(0, dcode, out.data_ptr(), x.data_ptr(), rows * d, stream())
            elif op == "rms_norm":
                rows, d = SIZES["rms_norm"]["large"]
                cols_in, form = d, lambda x, w: F.rms_norm(x, (d,), w, EPS)
                ours = lambda out, x, w: lib.probe_rms(0, dcode, out.data_ptr(), x.data_ptr(), w.data_ptr(), rows, d,
                                                       EPS, stream())
            else:
                code, gated, act_form = ACT_OPS[op]
                rows, d = SIZES["gated" if gated else "elementwise"]["large"]
                cols_in, form = (2 * d if gated else d), (lambda x, w, f=act_form: f(x, d))
                ours = lambda out, x, w, c=code: lib.probe_act(0, c, dcode, out.data_ptr(), x.data_ptr(), rows, d,
                                                             stream())
            set_stream()
            x = torch.rand(rows, cols_in, device="cuda").mul_(8).sub_(4).to(dt)
            w = torch.rand(d, device="cuda").add_(0.5).to(dt)
            own = torch.empty(rows, d, device="cuda", dtype=dt)
            ref = form(x.double(), w.double())
            for mode in COMPILE["modes"]:
                torch._dynamo.reset()
                compiled = torch.compile(form, mode=mode, dynamic=False)
                first = time_stream(lambda k: compiled(x, w), 1)
                previous = compiled(x, w)
                address = previous.data_ptr()
                del previous
                y = compiled(x, w)  # the block the timed calls wrote to, if they reuse one
                same = time_stream(lambda k: checked(ours(y, x, w)), 1)
                ok = close(y, ref, name)
                mine = time_stream(lambda k: checked(ours(own, x, w)), 1)
                offset = y.data_ptr() - x.data_ptr()
                del y
                again = time_stream(lambda k: compiled(x, w), 1)
                print(f"paired, {op} {name} {mode}: torch.compile {first:.1f} us, then {again:.1f}; ours into its "
                      f"output block {same:.1f} ({'ok' if ok else 'WRONG'}), into its own buffer {mine:.1f}; "
                      f"{first / same:.4f}x on the same buffers; output block at input {offset:+d} B "
                      f"({'reused by consecutive calls' if offset == address - x.data_ptr() else 'NOT reused'}), "
                      f"own buffer at {own.data_ptr() - x.data_ptr():+d} B", flush=True)


def placement_study(lib, ops, dtypes, pads_mib, offsets_kib, impls=(0,)):
    """Does where the output lies move ours and Inductor's kernel alike? kcheck
    bench times ours in its worker and the compiled form in another process,
    and in stop 53 the same kernel ran float32 silu and gelu_quick 0.4 %
    slower in the worker than beside the compiled form, gelu 0.2 %
    (speedup_summary.py's last column): placement is the hypothesis this
    tests. For each elementwise op of ACT_OPS and dtype at the large size, on
    one input and into one output: the launcher (impl 0), Inductor's kernel
    (torch.compile in each mode of --compile-modes, of the op writing into the
    given output), where aten has one the eager out= form, then the launcher
    again (a drift of the device shows as two different figures of ours); for
    outputs of two kinds: `pad N`, a fresh allocation after a pad of N MiB
    requested (the caching allocator serves 1-10 MiB requests from 20 MiB
    blocks; the offset printed is the real one) with the allocator's cache
    emptied first, so each is a new allocation, and `offset N`, the input and
    the output two views of one allocation, the output N KiB after the
    input's end. With several `impls` (probe_act's), each is timed on the
    same placement, all before and all again after Inductor's, and a line
    printed for each: does one of our kernel shapes keep up with Inductor's
    at the placements that slow both? Returns the number of wrong outputs
    (each impl's and Inductor's at each placement; a line says WRONG where
    that impl's or Inductor's was)."""
    impls = list(dict.fromkeys(impls))  # each once
    rows, d = SIZES["elementwise"]["large"]
    wrong = 0
    for op in ops:
        code, gated, act_form = ACT_OPS[op]
        if gated:
            raise SystemExit(f"placement: {op} is gated; elementwise ops only")
        for name in dtypes:
            dcode, dt = DTYPES[name]
            nbytes = rows * d * torch.tensor([], dtype=dt).element_size()
            compiled = {}
            for mode in COMPILE["modes"]:
                torch._dynamo.reset()
                compiled[mode] = torch.compile(lambda x, o, f=act_form: o.copy_(f(x, d)), mode=mode, dynamic=False)
            placements = [("pad", n) for n in pads_mib] + [("offset", n) for n in offsets_kib]
            for kind, amount in placements:
                x = out = pad = whole = None
                torch.cuda.empty_cache()
                set_stream()
                if kind == "pad":
                    x = torch.empty(rows, d, device="cuda", dtype=dt)
                    pad = torch.empty(amount << 20, dtype=torch.uint8, device="cuda") if amount else None
                    out = torch.empty_like(x)
                else:
                    whole = torch.empty(2 * nbytes + (amount << 10), dtype=torch.uint8, device="cuda")
                    x = whole[:nbytes].view(dt).view(rows, d)
                    out = whole[nbytes + (amount << 10):].view(dt).view(rows, d)
                x.copy_(torch.rand(rows, d, device="cuda").mul_(8).sub_(4))
                ref = act_form(x.double(), d)
                ours = {impl: lambda k, impl=impl: checked(lib.probe_act(impl, code, dcode, out.data_ptr(),
                                                                         x.data_ptr(), rows, d, stream()))
                        for impl in impls}
                first, ok = {}, {}
                for impl, call in ours.items():
                    out.zero_()
                    first[impl] = time_stream(call, 1)
                    ok[impl] = close(out, ref, name)
                theirs, inductor_ok = [], True
                for mode, into in compiled.items():
                    out.zero_()
                    theirs.append((mode, time_stream(lambda k: into(x, out), 1)))
                    inductor_ok = close(out, ref, name) and inductor_ok
                del ref
                eager = (f", eager out= {time_stream(lambda k: OUT_FORMS[op](x, out), 1):.1f}"
                         if op in OUT_FORMS else "")
                again = {impl: time_stream(call, 1) for impl, call in ours.items()}
                wrong += sum(not good for good in ok.values()) + (not inductor_ok)
                best = min(t for _, t in theirs)
                for impl in impls:
                    print(f"placement, {op} {name}, {kind} {amount}, output at input "
                          f"{out.data_ptr() - x.data_ptr():+d} B: ours{'' if impls == [0] else f' (impl {impl})'} "
                          f"{first[impl]:.1f} then {again[impl]:.1f} us; Inductor into it "
                          + ", ".join(f"{mode} {t:.1f}" for mode, t in theirs)
                          + f"{eager}; fastest Inductor over ours "
                          f"{best / statistics.median([first[impl], again[impl]]):.4f}x "
                          f"({'ok' if ok[impl] and inductor_ok else 'WRONG'})", flush=True)
                del x, out, pad, whole
    return wrong


def odd_shapes(lib):
    """The launchers (impl 0) on odd sizes and misaligned pointers, against Torch: buffers
    that start 0, 1 element or 8 bytes (the gated ops' 8-byte units, not 16-byte packs)
    past an allocation; a gated row of 9 x 12 (d = 6: whole 8-byte units of float32,
    no whole pack); 1025 and 2050 elements (whole tiles of the elementwise launcher and
    one or two elements past them: float32's tiles are 1024 elements, 16 bits' 2048)."""
    failures = 0
    for name, (code, dt) in DTYPES.items():
        for rows, d in ((1, 1), (3, 7), (9, 12), (7, 129), (5, 4104), (3, 70000), (2, 8200), (1, 1025), (2, 1025)):
            for offset in sorted({0, 1, 8 // dt.itemsize}):
                x = torch.rand(rows * d + offset, device="cuda").mul_(8).sub_(4).to(dt)[offset:].view(rows, d)
                out = torch.empty(rows * d + offset, device="cuda", dtype=dt)[offset:].view(rows, d)
                checked(lib.probe_relu(0, code, out.data_ptr(), x.data_ptr(), rows * d, stream()))
                failures += not torch.equal(out, torch.relu(x))
                w = torch.rand(d + offset, device="cuda").add_(0.5).to(dt)[offset:]
                checked(lib.probe_rms(0, code, out.data_ptr(), x.data_ptr(), w.data_ptr(), rows, d, EPS, stream()))
                failures += not close(out, F.rms_norm(x.double(), (d,), w.double(), EPS), name)
                for op in ("silu_and_mul", "gelu_and_mul", "fatrelu_and_mul", "gelu_tanh_and_mul", "gelu_tanh",
                           "gelu"):
                    pcode, gated, form = ACT_OPS[op]
                    if gated and d % 2:
                        continue
                    dd = d // 2 if gated else d
                    o = torch.empty(rows * dd + offset, device="cuda", dtype=dt)[offset:].view(rows, dd)
                    checked(lib.probe_act(0, pcode, code, o.data_ptr(), x.data_ptr(), rows, dd, stream()))
                    failures += not close(o, form(x.double(), dd), name)
    torch.cuda.synchronize()
    print(f"odd shapes and misaligned pointers (launchers): {failures} failures", flush=True)
    return failures


def ncu_mode(lib):
    """Each production kernel (impl 0) and the old one (impl 1) once, bfloat16, large size, and Torch's
    relu, between cudaProfilerStart and Stop (for `ncu --profile-from-start off`)."""
    dt = torch.bfloat16
    x = torch.rand(16384, 16384, device="cuda").mul_(8).sub_(4).to(dt)
    x_half = x[:, :8192].contiguous()
    out = torch.empty(16384, 8192, device="cuda", dtype=dt)
    w = torch.rand(8192, device="cuda").add_(0.5).to(dt)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for impl in (0, 1):
        checked(lib.probe_relu(impl, 2, out.data_ptr(), x.data_ptr(), 16384 * 8192, stream()))
        checked(lib.probe_rms(impl, 2, out.data_ptr(), x.data_ptr(), w.data_ptr(), 16384, 8192, EPS, stream()))
        checked(lib.probe_act(impl, 0, 2, out.data_ptr(), x.data_ptr(), 16384, 8192, stream()))
    torch.relu(x_half)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lib")
    parser.add_argument("--ncu", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--parts", default="relu,rms,act,act_all",
                        help="any of relu, rms, act, act_all, drift (drift_study), paired (paired_study), placement "
                        "(placement_study; these three not in the default)")
    parser.add_argument("--placement-ops", default="silu,gelu_quick,gelu",
                        help="placement: these elementwise ops (names of ACT_OPS), in --dtypes")
    parser.add_argument("--placement-pads", default="0,2,64,1024",
                        help="placement: MiB allocated between the input and each output")
    parser.add_argument("--placement-offsets", default="0,4,64,2048,3072",
                        help="placement: KiB between the input's end and the output, in one allocation")
    parser.add_argument("--placement-impls", default="0",
                        help="placement: these probe_act impls (0, the launcher), each timed at every placement")
    parser.add_argument("--paired-ops", default="relu,rms_norm,gelu_quick,silu,gelu",
                        help="paired: these ops (relu, rms_norm, names of ACT_OPS), in --dtypes")
    parser.add_argument("--drift-seconds", default="20,10", help="drift: seconds busy, seconds idle")
    parser.add_argument("--relu-impls", default="0,1,2,3,4,5,6")
    parser.add_argument("--rms-impls", default="0,1,2,3,4")
    parser.add_argument("--act-impls", default="0,1,2,3,4,5")
    parser.add_argument("--act-ops", help="with --parts act: these ops (names of ACT_OPS, comma-separated) in "
                        "--sizes, compiled at the large size, instead of the default set")
    parser.add_argument("--same-out", action="store_true", help="activation: also time one output buffer for "
                        "every call (ours and Torch's out= forms), see the module's docstring")
    parser.add_argument("--sizes", default="large,medium",
                        help="named sizes or ROWSxD shapes (the output's; a gated op reads ROWSx2D), comma-separated")
    parser.add_argument("--dtypes", default="float32,float16,bfloat16")
    parser.add_argument("--compile-modes", default="default", help="torch.compile modes, comma-separated")
    parser.add_argument("--compile-dtypes", help="dtypes compiled at the large size (default: bfloat16 for relu, "
                        "float32 and bfloat16 for the others)")
    parser.add_argument("--repeat", type=int, default=1, help="time each impl this many times (the spread between them is the noise)")
    parser.add_argument("--inductor-autotune-log", action="store_true", help="print Inductor's own timing of each "
                        "config it autotunes and so which one it picked (its triton_heuristics debug log; needs an "
                        "empty TORCHINDUCTOR_CACHE_DIR, or it reads the cached pick and times nothing)")
    args = parser.parse_args()
    if args.inductor_autotune_log:
        logger = logging.getLogger("torch._inductor.runtime.triton_heuristics")
        logger.setLevel(logging.DEBUG)
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter("inductor autotune: %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False  # not again through torch._inductor's own handler
    lib = load(args.lib)
    set_stream()
    if args.ncu:
        ncu_mode(lib)
        return 0
    lib.probe_memory_bandwidth_per_sm.restype = ctypes.c_double
    print(torch.cuda.get_device_name(), torch.__version__, "SMs", lib.probe_sms(),
          f"memory bandwidth per SM {lib.probe_memory_bandwidth_per_sm() / 1e9:.1f} GB/s", flush=True)
    for units in (2, 4, 8):
        for name, (code, _) in DTYPES.items():
            registers, blocks = ctypes.c_int(), ctypes.c_int()
            lib.probe_rms_shape(units, code, 8192, ctypes.byref(registers), ctypes.byref(blocks))
            print(f"rms_norm kernel, {units} packs per thread, {name}, d 8192: {registers.value} registers, "
                  f"{blocks.value} blocks per SM", flush=True)
    failures = odd_shapes(lib)
    placement_wrong = 0
    src = torch.ones(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    copy_us = time_stream(lambda k: dst.copy_(src), 1, samples=15)
    copy_gbs = 2 * (1 << 30) / copy_us / 1e3
    del src, dst
    print(f"copy 1 GiB: {copy_us:.1f} us, {copy_gbs:.0f} GB/s", flush=True)
    table = Table(copy_gbs)
    print("| op | dtype | size | impl | µs | % copy | × best Torch | graph µs | check |")
    print("|---|---|---|---|---:|---:|---:|---:|---|")
    parts = args.parts.split(",")
    compile_large = not args.no_compile
    all_dtypes = args.dtypes.split(",")
    COMPILE["modes"] = args.compile_modes.split(",")
    if "drift" in parts:
        busy, idle = (float(x) for x in args.drift_seconds.split(","))
        drift_study(lib, busy, idle)
    if "paired" in parts:
        paired_study(lib, args.paired_ops.split(","), all_dtypes)
    if "placement" in parts:
        placement_wrong = placement_study(lib, args.placement_ops.split(","), all_dtypes,
                                          [int(x) for x in args.placement_pads.split(",")],
                                          [int(x) for x in args.placement_offsets.split(",")],
                                          [int(x) for x in args.placement_impls.split(",")])
    SAME_OUT[0] = args.same_out
    if args.compile_dtypes:
        COMPILE["dtypes"] = {"relu": args.compile_dtypes.split(","), "other": args.compile_dtypes.split(",")}
    sizes = args.sizes.split(",")
    impls = lambda text: [int(x) for x in text.split(",")] * args.repeat
    if "relu" in parts:
        bench_relu(lib, table, sizes, all_dtypes, impls(args.relu_impls), compile_large)
    if "rms" in parts:
        bench_rms(lib, table, sizes, all_dtypes, impls(args.rms_impls), compile_large)
    if "act" in parts and args.act_ops:
        bench_act(lib, table, args.act_ops.split(","), sizes, all_dtypes, impls(args.act_impls), compile_large)
    elif "act" in parts:
        bench_act(lib, table, ["silu_and_mul", "mul_gate(no math)"], sizes, all_dtypes, impls(args.act_impls),
                  compile_large)
        bench_act(lib, table, ["silu", "gelu_tanh", "identity(no math)"], ["large"], all_dtypes,
                  impls(args.act_impls), False)
    if "act_all" in parts:
        bench_act(lib, table, ["gelu_and_mul", "fatrelu_and_mul", "gelu_tanh_and_mul", "gelu", "gelu_quick"],
                  ["large"], all_dtypes, [0, 1], False)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "copy_gbs": copy_gbs, "rows": table.rows}, f, indent=1)
    wrong = sum(not r["ok"] for r in table.rows) + placement_wrong
    print(f"{wrong} wrong outputs; {failures} odd-shape failures")
    return 1 if wrong or failures else 0


if __name__ == "__main__":
    sys.exit(main())
