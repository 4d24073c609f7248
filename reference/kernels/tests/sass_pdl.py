#!/usr/bin/env python3
"""Lists the kernels whose SASS breaks the reference kernels' PDL contract
(gpu_compat::enter_grid, issue #32): a kernel instantiated with kOverlap
true (its last template argument) may be launched with programmatic
dependent launch, which starts it while the grid before it in the stream is
still writing, so it must wait (griddepcontrol.wait, ACQBULK in the SASS)
before its first global load or store; any other kernel must not wait or
trigger at all (ACQBULK, PREEXIT), which costs every block even in a plain
launch (2 KB blocks ran 20% slower with them on an H200).

    sass_pdl.py NVDISASM [KERNEL_CU ...] [--arch sm_90] [--nvcc NVCC]

Compiles each KERNEL_CU (default: the relu, activation and rms_norm kernels)
with nvcc to a cubin, disassembles it with NVDISASM (see sass_load_order.py)
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
GLOBAL_ACCESS = re.compile(r"(@!?U?P\d+\s+)?(LDG|STG|LD|ST|ATOMG|ATOM|RED|REDG|LDGSTS)(\.|\s|$)")
WAIT = re.compile(r"(@!?U?P\d+\s+)?ACQBULK\b")
PDL_CONTROL = re.compile(r"(@!?U?P\d+\s+)?(ACQBULK|PREEXIT)\b")


def last_template_argument(demangled):
    """The last top-level argument of the kernel's template argument list ('true' for kOverlap), or None."""
    start = demangled.find("<")
    if start < 0:
        return None
    depth, args, current = 0, [], ""
    for char in demangled[start + 1:]:
        if char in "<(":
            depth += 1
        elif char in ">)":
            if depth == 0:
                args.append(current.strip())
                return args[-1]
            depth -= 1
        elif char == "," and depth == 0:
            args.append(current.strip())
            current = ""
            continue
        current += char
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
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    args = parser.parse_args(argv)
    broken = overlapping = checked = 0
    for source in args.sources:
        sass, _ = compile_to_sass(args.nvcc, args.nvdisasm, source, args.arch)
        for name, instructions in kernel_bodies(sass):
            checked += 1
            overlapping += last_template_argument(name) == "true"
            why = broken_contract(name, instructions)
            if why:
                broken += 1
                print(f"{Path(source).name}: {why}: {name}")
    print(f"{broken} of {checked} kernels break the PDL contract ({overlapping} overlap)")
    return 1 if broken or not overlapping else 0


if __name__ == "__main__":
    sys.exit(main())
