#!/usr/bin/env python3
"""Lists the activation gated kernels whose two input loads are not issued
together in the machine code: some arithmetic between the first and second
global load (LDG) means the second waits on the first one's data, so each
thread has one load in flight instead of two (issue #32, mul_and_silu float16
on an H200).

    sass_load_order.py NVDISASM [KERNEL_CU] [--arch sm_90]

Compiles KERNEL_CU (default: the activation kernels) with nvcc to a cubin,
disassembles it with NVDISASM (not part of the CUDA toolkit on this machine:
the Triton in the repository's venv ships one, in
.venv/lib/python3.*/site-packages/triton/backends/nvidia/bin), and prints
each gated_kernel instantiation with arithmetic between its first two loads
(a heuristic: SHF, PRMT and IMAD.U32 can also be address arithmetic; a
register dependency test would be exact). Exit status 1 if any but float64
gelu_and_mul (known, not benched) splits them. Exploration only, like the
probe.
"""
import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CU = HERE.parent / "activation" / "activation_cuda" / "activation_kernels.cu"
ARITHMETIC = re.compile(r"(@!?P\d+\s+)?(FMUL|FADD|FFMA|MUFU|HADD2|HFMA2|HMUL2|IMAD\.U32|PRMT|FSETP|FSEL|FMNMX|DMUL|DADD|DFMA|SHF)")


def split_loads(sass):
    """(demangled name, arithmetic instructions between the first two LDGs) per split gated kernel."""
    parts = re.split(r"\n\s*\.text\.(\S+):\n", sass)
    found = []
    for name, body in zip(parts[1::2], parts[2::2]):
        if "gated_kernel" not in name:
            continue
        ins = [m.group(1) for m in (re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?);", line) for line in body.splitlines()) if m]
        loads = [i for i, text in enumerate(ins) if text.startswith("LDG")]
        if len(loads) < 2:
            continue
        between = [text for text in ins[loads[0] + 1:loads[1]] if ARITHMETIC.match(text)]
        if between:
            demangled = subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()
            found.append((demangled, len(between)))
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nvdisasm")
    parser.add_argument("source", nargs="?", default=str(DEFAULT_CU))
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "kernels.cubin"
        subprocess.run([args.nvcc, "-std=c++17", "-O3", f"-arch={args.arch}", "-cubin", args.source, "-o", str(cubin)],
                       check=True)
        sass = subprocess.run([args.nvdisasm, "-c", str(cubin)], check=True, capture_output=True, text=True).stdout
    found = split_loads(sass)
    total = len(re.findall(r"\.text\.\S*gated_kernel\S*:", sass))
    for name, count in found:
        print(f"{count} arithmetic instructions between the loads: {name}")
    print(f"{len(found)} of {total} gated kernels split their two loads")
    unexpected = [name for name, _ in found if not name.startswith("void (anonymous namespace)::gated_kernel<double, "
                                                                    "activation::ActAndMul<activation::GeluErf>")]
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
