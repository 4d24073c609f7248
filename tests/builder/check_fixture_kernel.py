"""Loads a fixture kernel built by `kcheck build` through the real `kernels`
package and calls its op.

    check_fixture_kernel.py KERNEL_DIR VARIANT [--op scale|copy] [--device cpu|cuda] [--archs 9.0,...]

KERNEL_DIR holds build/<variant>/, where VARIANT is a glob that must match
exactly one directory (the CUDA version and CPU come from the machine). With --op,
`kernels.get_local_kernel` picks the variant itself (its own selection:
stable ABI, then torch<XY>, then Python-only), which must be VARIANT, and the
op is called: `scale` (out = x * 2) or `copy`. With --archs, the variant's
metadata.json backend.archs must be exactly that list. Each --absent-path
must not occur in the variant's native module (no build path leaks, KE012);
each --present-string must (e.g. the stable path of a -lineinfo line table).
Prints one line per check and `N passed, N failed`; exits 1 on a failure.
"""
import argparse
import json
import sys
from pathlib import Path

import kernels
import torch


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("kernel_dir", type=Path)
    parser.add_argument("variant")
    parser.add_argument("--op", choices=["scale", "copy"])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--archs")
    parser.add_argument("--absent-path", action="append", default=[])
    parser.add_argument("--present-string", action="append", default=[])
    args = parser.parse_args()
    passed = failed = 0

    def check(ok: bool, what: str) -> None:
        nonlocal passed, failed
        passed, failed = passed + ok, failed + (not ok)
        print(("PASS " if ok else "FAIL ") + what)

    matches = sorted(p for p in (args.kernel_dir / "build").glob(args.variant) if p.is_dir())
    check(len(matches) == 1, f"exactly one variant matches {args.variant}: {[p.name for p in matches]}")
    if len(matches) != 1:
        print(f"{passed} passed, {failed} failed")
        return 1
    variant_dir = matches[0]
    if args.archs is not None:
        archs = json.loads((variant_dir / "metadata.json").read_text()).get("backend", {}).get("archs")
        check(archs == args.archs.split(","), f"metadata backend.archs {archs} == {args.archs.split(',')}")
    for module_path in variant_dir.glob("*.so"):
        data = module_path.read_bytes()
        for path in args.absent_path:
            check(path.encode() not in data, f"{module_path.name} does not contain {path}")
        for text in args.present_string:
            check(text.encode() in data, f"{module_path.name} contains {text}")
    if args.op is None:
        print(f"{passed} passed, {failed} failed")
        return 1 if failed else 0
    module = kernels.get_local_kernel(args.kernel_dir, backend=args.device)
    loaded_from = Path(module.__file__).resolve().parent
    check(loaded_from.name == variant_dir.name, f"kernels.get_local_kernel chose {loaded_from.name} (expected {variant_dir.name})")
    x = torch.arange(1000, dtype=torch.float32, device=args.device) / 7
    if args.op == "scale":
        result = module.scale(x, 2.0)
        check(torch.equal(result, x * 2.0), "scale(x, 2.0) == x * 2")
    else:
        result = module.copy(x)
        check(torch.equal(result, x), "copy(x) == x")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
