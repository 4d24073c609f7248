"""Loads a fixture kernel built by `kcheck build` through the real `kernels`
package and calls its op.

    check_fixture_kernel.py KERNEL_DIR VARIANT [--op scale|copy] [--device cpu|cuda] [--archs 9.0,...]

KERNEL_DIR holds build/<variant>/, which must exist. With --op,
`kernels.get_local_kernel` picks the variant itself (its own selection:
stable ABI, then torch<XY>, then Python-only), which must be VARIANT, and the
op is called: `scale` (out = x * 2) or `copy`. With --archs, the variant's
metadata.json backend.archs must be exactly that list.
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
    args = parser.parse_args()
    passed = failed = 0

    def check(ok: bool, what: str) -> None:
        nonlocal passed, failed
        passed, failed = passed + ok, failed + (not ok)
        print(("PASS " if ok else "FAIL ") + what)

    variant_dir = args.kernel_dir / "build" / args.variant
    check(variant_dir.is_dir(), f"{variant_dir} exists")
    if args.archs is not None:
        archs = json.loads((variant_dir / "metadata.json").read_text()).get("backend", {}).get("archs")
        check(archs == args.archs.split(","), f"metadata backend.archs {archs} == {args.archs.split(',')}")
    if args.op is None:
        print(f"{passed} passed, {failed} failed")
        return 1 if failed else 0
    module = kernels.get_local_kernel(args.kernel_dir, backend=args.device)
    loaded_from = Path(module.__file__).resolve().parent
    check(loaded_from.name == args.variant, f"kernels.get_local_kernel chose {loaded_from.name} (expected {args.variant})")
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
