#!/usr/bin/env python3
"""Effective memory bandwidth of the reference CUDA kernels.

Usage: bench_ops.py SO [SO ...]   (native modules built by build_so.py)

For each op found, times it on large bfloat16/float16/float32 tensors with
CUDA events (median of 50 after warm-up) and prints GB/s counting bytes read
and written once, next to torch's own implementation of the same op.
"""

import sys
from pathlib import Path

import torch
import torch.nn.functional as F

ROWS, D = 16384, 8192  # 128 Mi elements of input per op


def bench(fn, iters=50):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2] / 1e3


def gbps(nbytes, seconds):
    return nbytes / seconds / 1e9


def main(paths):
    print(f"# {torch.cuda.get_device_name()}  torch {torch.__version__}")
    for path in paths:
        torch.ops.load_library(path)
        ns_name = Path(path).name.split(".", 1)[0]
        ns = getattr(torch.ops, ns_name)
        names = {n.split("::", 1)[1] for n in torch._C._dispatch_get_all_op_names()
                 if n.startswith(ns_name + "::")}
        for dtype in (torch.bfloat16, torch.float16, torch.float32):
            x = torch.randn(ROWS, D, device="cuda", dtype=dtype)
            es = x.element_size()
            cases = []
            if "relu" in names:
                out = torch.empty_like(x)
                cases.append(("relu", lambda: ns.relu(out, x), lambda: torch.relu(x),
                              2 * x.numel() * es))
            if "silu_and_mul" in names:
                half = torch.empty(ROWS, D // 2, device="cuda", dtype=dtype)
                cases.append(("silu_and_mul", lambda: ns.silu_and_mul(half, x),
                              lambda: F.silu(x[:, : D // 2]) * x[:, D // 2:],
                              (x.numel() + half.numel()) * es))
                out = torch.empty_like(x)
                cases.append(("gelu", lambda: ns.gelu(out, x), lambda: F.gelu(x),
                              2 * x.numel() * es))
            if "rms_norm" in names:
                w = torch.randn(D, device="cuda", dtype=dtype)
                out = torch.empty_like(x)
                cases.append(("rms_norm", lambda: ns.rms_norm(out, x, w, 1e-6),
                              lambda: F.rms_norm(x, (D,), w, 1e-6), 2 * x.numel() * es))
            for name, ours, theirs, nbytes in cases:
                t_ours, t_torch = bench(ours), bench(theirs)
                print(f"{name:<14} {str(dtype).replace('torch.', ''):<9} [{ROWS}x{D}]  "
                      f"ours {t_ours * 1e6:8.1f} us {gbps(nbytes, t_ours):7.0f} GB/s   "
                      f"torch {t_torch * 1e6:8.1f} us {gbps(nbytes, t_torch):7.0f} GB/s")
            del x
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1:])
