#!/usr/bin/env python3
"""Numerical check of the reference kernels (relu, activation, rms_norm).

Usage:
    check_ops.py TARGET [DEVICE] [--loader auto|kernels|importlib] [--dtypes ...]

TARGET is one of
  - a native module (`<id>.abi3.so`): loaded with torch.ops.load_library, ops
    called raw from the torch.ops.<id> namespace;
  - a build variant directory (`__init__.py`, `_ops.py`, `<id>.abi3.so`,
    `metadata.json`), or a kernel directory holding `build/<variant>/`:
    loaded with kernels.get_local_kernel when the `kernels` package is
    importable (otherwise, or with --loader importlib, the variant directory
    is imported as a package with importlib), ops called through the
    package's Python functions and raw through its `ops` namespace.
DEVICE is `cpu` (default) or `cuda`.

Every op of the kernel found in TARGET is compared with Torch's own
implementation (computed in float32 from the same input and rounded once to
the input dtype) with per-dtype tolerances, for several shapes including
odd sizes and inputs that start one element or 8 bytes past a 16-byte
boundary; argument checks (bad dtype,
non-contiguous input, wrong out shape) must raise. One line per case, then
`N passed, N failed`; the exit status is 1 on any failure.
"""

import argparse
import importlib.util
import json
import math
import sys
import traceback
from pathlib import Path

import torch
import torch.nn.functional as F

# ---------------------------------------------------------------------------
# What each reference kernel provides and how Torch computes it.

# Per-dtype (rtol, atol): one rounding of the same float32 value may differ
# by an ulp, plus transcendental-function differences in float32.
TOLERANCES = {
    torch.float32: (2e-5, 2e-5),
    torch.float16: (2e-3, 2e-3),
    torch.bfloat16: (1.6e-2, 1.6e-2),
    torch.float64: (1e-10, 1e-12),
}

DTYPE_NAMES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float64": torch.float64,
}


def _gelu_tanh(x):
    return F.gelu(x, approximate="tanh")


def _gelu_quick(x):
    return x * torch.sigmoid(1.702 * x)


def _halves(x):
    d = x.shape[-1] // 2
    return x[..., :d], x[..., d:]


def _gated(act):
    def ref(x):
        a, b = _halves(x)
        return act(a) * b

    return ref


def _mul_and_silu(x):
    a, b = _halves(x)
    return a * F.silu(b)


def _fatrelu(threshold):
    def ref(x):
        a, b = _halves(x)
        return torch.where(a > threshold, a, torch.zeros_like(a)) * b

    return ref


def _rms_norm(x, weight, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


class Op:
    """One op: its name, its kind (which shapes and arguments it takes) and
    Torch's implementation, given float32 (float64) inputs."""

    def __init__(self, name, kind, reference, exact=False):
        self.name = name
        self.kind = kind  # "elementwise", "gated", "fatrelu", "rms_norm"
        self.reference = reference
        self.exact = exact


KERNELS = {
    "relu": [Op("relu", "elementwise", torch.relu, exact=True)],
    "activation": [
        Op("silu_and_mul", "gated", _gated(F.silu)),
        Op("mul_and_silu", "gated", _mul_and_silu),
        Op("gelu_and_mul", "gated", _gated(F.gelu)),
        Op("gelu_tanh_and_mul", "gated", _gated(_gelu_tanh)),
        Op("fatrelu_and_mul", "fatrelu", _fatrelu),
        Op("gelu_new", "elementwise", _gelu_tanh),
        Op("gelu_fast", "elementwise", _gelu_tanh),
        Op("gelu_quick", "elementwise", _gelu_quick),
        Op("gelu_tanh", "elementwise", _gelu_tanh),
        Op("silu", "elementwise", F.silu),
        Op("gelu", "elementwise", F.gelu),
    ],
    "rms_norm": [Op("rms_norm", "rms_norm", _rms_norm)],
}

# (input shape, offset): the input starts `offset` past a 16-byte boundary,
# ELEMENT (one element: the kernels' scalar fallback) or 8 bytes (2 floats, 4
# halves: the gated kernels' 8-byte units still apply where the launcher uses
# them, an H100's float32 and 16-bit gelu, gelu_tanh and fatrelu gates; on an
# H200 every gate is in 16-byte packs and takes the scalar form here).
# A gated input row of 12 (d = 6) is whole 8-byte units of float32 but no
# whole 16-byte pack; one of 26 (d = 13) is neither. Elementwise 1025, 2049
# and 2050 elements: whole tiles of the H200's launcher (float32: 256 packs
# of 4, 1024 elements; 16 bits: 256 packs of 8, 2048 elements) with one or
# two elements past them, which the last block adds though its tile needs no
# bounds test. 2^23 + 5 elements: past the 2^21 float32 packs up to which
# every float32 op takes two packs per thread (kFloatTwoPacksUpTo; above it
# one, GELU with a 32-bit index), with a part tile and elements past the last
# whole pack (float32: 1; 16 bits: 5).
ELEMENT = "element"
SHAPES = {
    "elementwise": [((7,), 0), ((3, 129), 0), ((4, 16, 257), 0), ((1, 1025), 0), ((2, 1025), 0), ((1, 2049), 0),
                    ((1024, 2048), 0), ((1, (1 << 23) + 5), 0), ((5, 64), ELEMENT), ((5, 64), 8)],
    "gated": [((1, 16), 0), ((5, 26), 0), ((9, 12), 0), ((3, 4, 128), 0),
              ((257, 2048), 0), ((7, 128), ELEMENT), ((7, 128), 8), ((9, 12), 8)],
    "rms_norm": [((1, 8), 0), ((7, 33), 0), ((4, 5, 128), 0),
                 ((512, 4096), 0), ((3, 4100), 0), ((6, 256), ELEMENT), ((6, 256), 8),
                 # packed rows longer than one chunk of the two-loop kernel (an H200's:
                 # 8192 elements), one chunk and a part, and 2.5 chunks; rows of whole
                 # chunks take it without bounds checks: one chunk (8192, 4096 above in
                 # 256 threads in 16 bits, and 512 in one warp) and two
                 ((3, 8200), 0), ((2, 20480), 0), ((3, 8192), 0), ((2, 16384), 0), ((2, 512), 0)],
}
SHAPES["fatrelu"] = SHAPES["gated"]
FATRELU_THRESHOLDS = (0.0, 0.5, -0.25)
RMS_EPSILONS = (1e-6, 1e-5)


# ---------------------------------------------------------------------------
# Loading the target.


class Target:
    """The loaded kernel: `raw` is the torch.ops namespace object, `api` the
    Python package (None for a bare .so), `namespace` the op library name."""

    def __init__(self, namespace, raw, api, how):
        self.namespace = namespace
        self.raw = raw
        self.api = api
        self.how = how

    def registered_ops(self):
        prefix = self.namespace + "::"
        return {name[len(prefix):] for name in torch._C._dispatch_get_all_op_names()
                if name.startswith(prefix)}


def _namespace_of(ops_obj):
    name = getattr(ops_obj, "name", None)
    if isinstance(name, str):
        return name
    return getattr(ops_obj, "__name__", "").rsplit(".", 1)[-1]


def load_so(path):
    torch.ops.load_library(str(path))
    namespace = path.name.split(".", 1)[0]
    return Target(namespace, getattr(torch.ops, namespace), None, "torch.ops.load_library")


def _variant_dir_for(path, device):
    """The variant directory kernels would pick for `path` (a variant dir or
    a kernel dir with build/), found without the kernels package."""
    if (path / "metadata.json").exists():
        return path
    for base in (path, path / "build"):
        if not base.is_dir():
            continue
        candidates = sorted(p for p in base.iterdir()
                            if p.is_dir() and (p / "metadata.json").exists())
        for p in candidates:
            meta = json.loads((p / "metadata.json").read_text())
            if meta.get("backend", {}).get("type") == device:
                return p
    raise FileNotFoundError(f"no variant directory for backend {device!r} in {path}")


def import_variant(variant):
    meta = json.loads((variant / "metadata.json").read_text())
    module_id = meta["id"]
    init = variant / "__init__.py"
    spec = importlib.util.spec_from_file_location(
        module_id, init, submodule_search_locations=[str(variant)])
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {init}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_id] = module
    spec.loader.exec_module(module)
    return module


def load_package(path, device, loader, results):
    module = None
    how = None
    if loader in ("auto", "kernels"):
        try:
            import kernels  # noqa: F401
        except ImportError:
            if loader == "kernels":
                raise
        else:
            try:
                module = kernels.get_local_kernel(path, backend=device)
                how = "kernels.get_local_kernel"
                results.record(True, f"load  kernels.get_local_kernel({path}, backend={device!r})")
            except Exception as exc:  # a loader failure is a finding; go on with importlib
                results.record(False, f"load  kernels.get_local_kernel({path}, backend={device!r}): "
                               f"{type(exc).__name__}: {_first_line(exc)}")
                if loader == "kernels":
                    raise
    if module is None:
        variant = _variant_dir_for(path, device)
        module = import_variant(variant)
        how = f"importlib ({variant})"
    ops_obj = getattr(module, "ops", None)
    if ops_obj is None:
        ops_obj = importlib.import_module(module.__name__ + "._ops").ops
    return Target(_namespace_of(ops_obj), ops_obj, module, how)


# ---------------------------------------------------------------------------
# Checking.


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def record(self, ok, line):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(("PASS  " if ok else "FAIL  ") + line, flush=True)


def offset_elements(offset, dtype):
    """Elements of dtype that start the input `offset` (SHAPES) past its storage."""
    if offset == ELEMENT:
        return 1
    return offset // dtype.itemsize


def make_input(shape, dtype, device, offset, generator, scale=3.0):
    numel = math.prod(shape)
    offset = offset_elements(offset, dtype)
    base = torch.randn(numel + offset, generator=generator, dtype=torch.float32) * scale
    return base.to(device=device, dtype=dtype)[offset:].view(shape)


def compare(out, ref, dtype, exact):
    """(ok, max_abs_err) of out against ref (both of dtype)."""
    if out.shape != ref.shape or out.dtype != ref.dtype:
        return False, float("inf")
    o = out.double()
    r = ref.double()
    same_nan = torch.equal(torch.isnan(o), torch.isnan(r))
    o = torch.nan_to_num(o)
    r = torch.nan_to_num(r)
    err = (o - r).abs()
    max_err = err.max().item() if err.numel() else 0.0
    if exact:
        return same_nan and max_err == 0.0, max_err
    rtol, atol = TOLERANCES[dtype]
    return same_nan and bool((err <= atol + rtol * r.abs()).all()), max_err


def _sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def _out_shape(op, shape):
    if op.kind in ("gated", "fatrelu"):
        return shape[:-1] + (shape[-1] // 2,)
    return shape


def _cases(op):
    """(label, extra op args, reference) for each argument setting of op."""
    if op.kind == "fatrelu":
        return [(f"threshold={t}", (t,), op.reference(t)) for t in FATRELU_THRESHOLDS]
    if op.kind == "rms_norm":
        return [(f"eps={e}", (e,), None) for e in RMS_EPSILONS]
    return [("", (), op.reference)]


def run_case(target, op, dtype, shape, offset, extra, ref_fn, device, generator, use_api):
    compute = torch.float64 if dtype == torch.float64 else torch.float32
    x = make_input(shape, dtype, device, offset, generator)
    out_shape = _out_shape(op, shape)
    if op.kind == "rms_norm":
        weight = (torch.randn(shape[-1], generator=generator) * 0.2 + 1.0).to(device, dtype)
        eps = extra[0]
        ref = _rms_norm(x.to(compute), weight.to(compute), eps).to(dtype)
        if use_api:
            out = getattr(target.api, op.name)(x, weight, eps)
        else:
            out = torch.empty(out_shape, dtype=dtype, device=device)
            getattr(target.raw, op.name)(out, x, weight, eps)
    else:
        ref = ref_fn(x.to(compute)).to(dtype)
        if use_api:
            out = getattr(target.api, op.name)(x, *extra)
        else:
            out = torch.empty(out_shape, dtype=dtype, device=device)
            getattr(target.raw, op.name)(out, x, *extra)
    _sync(device)
    return compare(out, ref, dtype, op.exact)


def offset_label(offset):
    if offset == ELEMENT:
        return "misaligned "
    return f"offset {offset} B " if offset else ""


def check_numerics(target, op, dtypes, device, results):
    generator = torch.Generator().manual_seed(1234)
    for dtype in dtypes:
        dname = str(dtype).replace("torch.", "")
        for label, extra, ref_fn in _cases(op):
            for shape, offset in SHAPES[op.kind]:
                for use_api in ([True, False] if target.api is not None else [False]):
                    via = "api" if use_api else "raw"
                    desc = (f"{op.name:<18} {dname:<8} {str(tuple(shape)):<14} "
                            f"{offset_label(offset)}{label} [{via}]").rstrip()
                    try:
                        ok, err = run_case(target, op, dtype, shape, offset, extra, ref_fn,
                                           device, generator, use_api)
                        results.record(ok, f"{desc}  max_abs_err={err:.3g}")
                    except Exception as exc:
                        results.record(False, f"{desc}  {type(exc).__name__}: {_first_line(exc)}")


def check_out_argument(target, op, device, results):
    """The Python function writes into a given `out` and returns it."""
    if target.api is None:
        return
    shape = (4, 64)
    x = torch.randn(shape, device=device)
    out = torch.empty(_out_shape(op, shape), device=device)
    try:
        if op.kind == "rms_norm":
            weight = torch.ones(shape[-1], device=device)
            returned = getattr(target.api, op.name)(x, weight, 1e-6, out=out)
        else:
            returned = getattr(target.api, op.name)(x, out=out)
        _sync(device)
        results.record(returned is out, f"{op.name:<18} out= argument is written and returned [api]")
    except Exception as exc:
        results.record(False, f"{op.name:<18} out= argument  {type(exc).__name__}: {_first_line(exc)}")


def check_rejections(target, op, device, results):
    """Bad arguments raise instead of computing garbage."""
    shape = (4, 64)
    out_shape = _out_shape(op, shape)
    extra = (0.0,) if op.kind == "fatrelu" else ()

    def call(out, x):
        if op.kind == "rms_norm":
            getattr(target.raw, op.name)(out, x, torch.ones(x.shape[-1], dtype=x.dtype, device=device), 1e-6)
        else:
            getattr(target.raw, op.name)(out, x, *extra)
        _sync(device)

    bad = [
        ("int32 input", lambda: call(torch.empty(out_shape, dtype=torch.int32, device=device),
                                     torch.ones(shape, dtype=torch.int32, device=device))),
        ("non-contiguous input", lambda: call(torch.empty(out_shape, device=device),
                                              torch.randn(shape[::-1], device=device).t())),
        ("wrong out shape", lambda: call(torch.empty(3, 5, device=device),
                                         torch.randn(shape, device=device))),
    ]
    for what, fn in bad:
        try:
            fn()
            results.record(False, f"{op.name:<18} rejects {what}: no error raised")
        except RuntimeError as exc:
            results.record(True, f"{op.name:<18} rejects {what}: {_first_line(exc)[:90]}")
        except Exception as exc:
            results.record(False, f"{op.name:<18} rejects {what}: {type(exc).__name__}: {_first_line(exc)}")


def _first_line(exc):
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def detect_kernel(target):
    available = target.registered_ops()
    for kernel, ops in KERNELS.items():
        if all(op.name in available for op in ops):
            return kernel
    best = max(KERNELS, key=lambda k: sum(op.name in available for op in KERNELS[k]))
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target", type=Path, help=".so, variant directory, or kernel directory")
    parser.add_argument("device", nargs="?", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--loader", default="auto", choices=["auto", "kernels", "importlib"],
                        help="how a directory is loaded (default: kernels when importable)")
    parser.add_argument("--dtypes", nargs="+", default=["float32", "float16", "bfloat16"],
                        choices=sorted(DTYPE_NAMES))
    args = parser.parse_args(argv)

    if args.device == "cuda" and not torch.cuda.is_available():
        print("FAIL  CUDA requested but torch.cuda.is_available() is False")
        print("0 passed, 1 failed")
        return 1

    results = Results()
    target_path = args.target.resolve()
    try:
        if target_path.is_file():
            target = load_so(target_path)
        else:
            target = load_package(target_path, args.device, args.loader, results)
    except Exception as exc:
        traceback.print_exc()
        results.record(False, f"load  {target_path}: {type(exc).__name__}: {_first_line(exc)}")
        print(f"{results.passed} passed, {results.failed} failed")
        return 1

    kernel = detect_kernel(target)
    available = target.registered_ops()
    print(f"# target {target_path} loaded with {target.how}; namespace {target.namespace}; "
          f"kernel {kernel}; device {args.device}; torch {torch.__version__}", flush=True)
    dtypes = [DTYPE_NAMES[d] for d in args.dtypes]
    for op in KERNELS[kernel]:
        registered = op.name in available
        results.record(registered, f"{op.name:<18} registered as {target.namespace}::{op.name}")
        if not registered:
            continue
        if target.api is not None:
            exported = op.name in getattr(target.api, "__all__", ())
            results.record(exported, f"{op.name:<18} exported in __all__ of the package")
        check_numerics(target, op, dtypes, args.device, results)
        check_out_argument(target, op, args.device, results)
        check_rejections(target, op, args.device, results)

    print(f"{results.passed} passed, {results.failed} failed")
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
