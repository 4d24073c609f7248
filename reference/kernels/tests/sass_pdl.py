#!/usr/bin/env python3
"""Lists the kernels whose SASS breaks the reference kernels' PDL contract
(gpu_compat::enter_grid, issue #32): a kernel instantiated with kOverlap
true (its last template argument) may be launched with programmatic
dependent launch, which starts it while the grid before it in the stream is
still writing, so it must wait (griddepcontrol.wait, ACQBULK in the SASS)
before its first global load or store; any other kernel must not wait or
trigger at all (ACQBULK, PREEXIT): with them, blocks that read 2 KB ran at
0.79-0.93x the best Torch on an H200 though launched plainly (see
gpu_compat::overlaps_launches).

    sass_pdl.py NVDISASM [KERNEL_CU ...] [--arch sm_90,sm_100] [--nvcc NVCC]

Compiles each KERNEL_CU (default: the relu, activation and rms_norm kernels)
with nvcc to a cubin for each --arch (comma-separated; PDL needs sm_90 on),
disassembles it with NVDISASM (see sass_load_order.py)
and checks every kernel. A heuristic: the order in the code, not every path;
the kernels wait in their first statement. Exit status 1 if any kernel
breaks the contract, or if no kernel overlaps.
"""
import argparse
import re
import sys
from pathlib import Path

from sass_load_order import compile_to_sass, kernel_bodies

HERE = Path(__file__).resolve().parent
DEFAULT_SOURCES = [HERE.parent / k / f"{k}_cuda" / f"{k}_kernels.cu" for k in ("relu", "activation", "rms_norm")]
GLOBAL_ACCESS = re.compile(r"(@!?U?P(T|\d+)\s+)?(LDG|STG|LD|ST|ATOMG|ATOM|RED|REDG|LDGSTS)(\.|\s|$)")
WAIT = re.compile(r"(@!?U?P(T|\d+)\s+)?ACQBULK\b")
PDL_CONTROL = re.compile(r"(@!?U?P(T|\d+)\s+)?(ACQBULK|PREEXIT)\b")


def last_template_argument(demangled):
    """The last argument of the kernel's own template argument list ('true' for kOverlap), or None: read
    backwards from the '>' that closes the list just before the parameter list, so that a class template
    around the kernel or a templated parameter type is not taken for it."""
    end = len(demangled.rstrip())
    if not demangled[:end].endswith(")"):
        return None
    depth = 0
    for at in range(end - 1, -1, -1):  # the parameter list's '('
        depth += {")": 1, "(": -1}.get(demangled[at], 0)
        if depth == 0:
            break
    close = at - 1
    if close < 0 or demangled[close] != ">":
        return None
    depth = 0
    for at in range(close - 1, -1, -1):
        char = demangled[at]
        if char in ">)":
            depth += 1
        elif char in "<(":
            if depth == 0:
                return demangled[at + 1:close].strip() if char == "<" else None
            depth -= 1
        elif char == "," and depth == 0:
            return demangled[at + 1:close].strip()
    return None


def broken_contract(name, instructions):
    """Why the kernel breaks the contract, or None."""
    if last_template_argument(name) == "true":
        for text in instructions:
            if WAIT.match(text):
                return None
            if GLOBAL_ACCESS.match(text):
                return f"overlaps, {text.split()[0]} before any wait"
        return "overlaps, never waits"
    control = next((text for text in instructions if PDL_CONTROL.match(text)), None)
    return f"does not overlap, {control.split()[0]} costs each block" if control else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nvdisasm")
    parser.add_argument("sources", nargs="*", default=[str(p) for p in DEFAULT_SOURCES])
    parser.add_argument("--arch", default="sm_90,sm_100")
    parser.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    args = parser.parse_intermixed_args(argv)
    broken = overlapping = checked = 0
    for arch in args.arch.split(","):
        for source in args.sources:
            sass, _ = compile_to_sass(args.nvcc, args.nvdisasm, source, arch)
            for name, instructions in kernel_bodies(sass):
                checked += 1
                overlapping += last_template_argument(name) == "true"
                why = broken_contract(name, instructions)
                if why:
                    broken += 1
                    print(f"{Path(source).name} ({arch}): {why}: {name}")
    print(f"{broken} of {checked} kernels break the PDL contract ({overlapping} overlap, {args.arch})")
    return 1 if broken or not overlapping else 0


if __name__ == "__main__":
    sys.exit(main())
