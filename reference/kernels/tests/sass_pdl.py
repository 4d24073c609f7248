#!/usr/bin/env python3
"""Lists the kernels that touch global memory before they wait for the grid
before them: the reference kernels are launched with programmatic dependent
launch (PDL, gpu_compat::launch, issue #32), which may start a kernel while
the previous grid in the stream is still writing, so each must wait
(griddepcontrol.wait, ACQBULK in the SASS) before its first global load or
store.

    sass_pdl.py NVDISASM [KERNEL_CU ...] [--arch sm_90] [--nvcc NVCC]

Compiles each KERNEL_CU (default: the relu, activation and rms_norm kernels)
with nvcc to a cubin, disassembles it with NVDISASM (see sass_load_order.py),
and prints each kernel whose first global memory instruction (LDG, STG, LD,
ST, atomics, LDGSTS) comes before its first ACQBULK in the code's order, or
that has none. A heuristic: the order in the code, not every path; the
kernels wait in their first statement. Exit status 1 if any does.
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


def early_accesses(instructions):
    """The first global access that precedes every ACQBULK (None if a wait comes first or nothing is accessed)."""
    for text in instructions:
        if WAIT.match(text):
            return None
        if GLOBAL_ACCESS.match(text):
            return text
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nvdisasm")
    parser.add_argument("sources", nargs="*", default=[str(p) for p in DEFAULT_SOURCES])
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    args = parser.parse_args(argv)
    unwaited = 0
    checked = 0
    for source in args.sources:
        sass, _ = compile_to_sass(args.nvcc, args.nvdisasm, source, args.arch)
        for name, instructions in kernel_bodies(sass):
            checked += 1
            first = early_accesses(instructions)
            if first:
                unwaited += 1
                print(f"{Path(source).name}: {first.split()[0]} before any wait: {name}")
    print(f"{unwaited} of {checked} kernels access global memory before they wait for the grid before them")
    return 1 if unwaited or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
