#!/usr/bin/env python3
"""Lists the activation kernels whose input loads are not issued together in
the machine code: some arithmetic between two global loads (LDG) that should
go out together means the second waits on the first one's data, so each
thread has one load in flight instead of two (issue #32, mul_and_silu
float16 on an H200; float32 GELU in two packs per thread).

    sass_load_order.py NVDISASM [KERNEL_CU] [--arch sm_90]

Compiles KERNEL_CU (default: the activation kernels) with nvcc to a cubin,
disassembles it with NVDISASM (not part of the CUDA toolkit on this machine:
the Triton in the repository's venv ships one, in
.venv/lib/python3.*/site-packages/triton/backends/nvidia/bin), and prints
each gated_kernel instantiation with arithmetic between its first two loads,
and each elementwise_kernel instantiation of two or more 16-byte packs per
thread (kUnits) with arithmetic inside a group of kUnits consecutive 16-byte
loads (LDG.E.128, in the order they appear: one group per code path). A
heuristic: SHF, PRMT and IMAD.U32 can also be address arithmetic; a register
dependency test would be exact. Exit status 1 if any but KNOWN_SPLIT's
(not benched) splits them.

It also reads each kernel's register count from the cubin (.nv.info,
EIATTR_REGCOUNT) and fails if an elementwise kernel in blocks of 128 or 256
(the H200's shapes) with 16-byte units (float32, float16, bfloat16; float64
is not benched) takes more than 32 registers: then fewer than an SM's 2048
threads fit its 65536 registers (16 blocks of 128, 8 of 256), and a grid
that would fill the GPU in one wave takes two (float32 gelu_quick at
256 x 8192 on an H200 in 33fff69: 35 registers, 0.15 us behind). Exploration only, like the probe.
"""
import argparse
import struct
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_CU = HERE.parent / "activation" / "activation_cuda" / "activation_kernels.cu"
ARITHMETIC = re.compile(r"(@!?P\d+\s+)?(FMUL|FADD|FFMA|MUFU|HADD2|HFMA2|HMUL2|IMAD\.U32|PRMT|FSETP|FSEL|FMNMX|DMUL|DADD|DFMA|SHF)")


# An elementwise kernel in 16-byte units (elementwise_kernel<T, Act, 16, kBlock, kUnits, ...>): kUnits. An Act
# with template arguments of its own would not match (none has them).
ELEMENTWISE_PACKS = re.compile(r"elementwise_kernel<[^<>]*?, 16, \d+, (\d+)[,>]")
WIDE_LOAD = re.compile(r"(@!?P\d+\s+)?LDG\.E\.128")


def load_groups(demangled, ins):
    """The index lists of the loads that should issue together: a gated kernel's first two loads, an
    elementwise kernel's 16-byte loads in groups of its packs per thread (none below two packs)."""
    if "gated_kernel" in demangled:
        loads = [i for i, text in enumerate(ins) if text.startswith("LDG")]
        return [loads[:2]] if len(loads) >= 2 else []
    packs = ELEMENTWISE_PACKS.search(demangled)
    if not packs or int(packs.group(1)) < 2:
        return []
    units = int(packs.group(1))
    wide = [i for i, text in enumerate(ins) if WIDE_LOAD.match(text)]
    if len(wide) % units:
        # Not whole groups (a load hoisted out of its path, say): the grouping would pair loads of different
        # paths, so the kernel is reported as split (the whole span of its loads).
        return [[wide[0], wide[-1]]] if len(wide) > 1 else []
    return [wide[k:k + units] for k in range(0, len(wide), units)]


# elementwise_kernel<T, Act, kUnitBytes, kBlock, kUnits, ...>: the scalar type, unit bytes and block.
ELEMENTWISE_SHAPE = re.compile(r"elementwise_kernel<([^,<>]+), [^<>]*?, (\d+), (\d+), \d+[,>]")
REGISTERS_PER_SM = 65536
THREADS_PER_SM = 2048  # an SM's most resident threads
FULL_SM_BLOCKS = ("128", "256")  # the block sizes of the H200's elementwise kernels, checked for a full SM


def register_counts(cubin):
    """{mangled kernel name: registers} from a cubin's .nv.info section (EIATTR_REGCOUNT entries:
    format 0x04, attribute 0x2f, then the kernel's symbol index and its register count)."""
    shoff = struct.unpack_from("<Q", cubin, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]

    def text_at(section, offset):
        start = sections[section][4] + offset
        return cubin[start:cubin.index(b"\0", start)].decode()

    names = [text_at(shstrndx, section[0]) for section in sections]
    symtab = names.index(".symtab")
    _, _, _, _, offset, size, strtab, _, _, entsize = sections[symtab]
    symbols = [text_at(strtab, struct.unpack_from("<I", cubin, offset + k * entsize)[0]) for k in range(size // entsize)]
    counts = {}
    for name, (_, _, _, _, offset, size, _, _, _, _) in zip(names, sections):
        if name != ".nv.info":
            continue
        pos = offset
        while pos < offset + size:
            fmt, attribute = cubin[pos], cubin[pos + 1]
            if fmt == 0x04:  # a sized value
                length = struct.unpack_from("<H", cubin, pos + 2)[0]
                if attribute == 0x2F:
                    symbol, registers = struct.unpack_from("<II", cubin, pos + 4)
                    counts[symbols[symbol]] = registers
                pos += 4 + length
            elif fmt in (0x02, 0x03):  # a 1- or 2-byte value in the entry's last two bytes
                pos += 4
            elif fmt == 0x01:  # no value
                pos += 2
            else:
                raise ValueError(f".nv.info: unknown entry format {fmt:#x} at {pos - offset}")
    return counts


def crowded_kernels(counts):
    """(demangled name, registers) of each elementwise kernel in blocks of 128 or 256 with 16-byte units, not
    float64, that takes more registers than an SM's 2048 threads leave, and the number of such kernels checked."""
    names = list(counts)
    demangled = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                               check=True).stdout.splitlines()
    crowded = []
    checked = 0
    for name, plain in zip(names, demangled):
        shape = ELEMENTWISE_SHAPE.search(plain)
        if not shape or shape.group(1) == "double" or shape.group(2) != "16" or shape.group(3) not in FULL_SM_BLOCKS:
            continue
        checked += 1
        if counts[name] * THREADS_PER_SM > REGISTERS_PER_SM:
            crowded.append((plain, counts[name]))
    return crowded, checked


def compile_to_sass(nvcc, nvdisasm, source, arch):
    """(SASS text, cubin bytes) of `source` compiled by nvcc for `arch` (-O3, C++17)."""
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "kernels.cubin"
        subprocess.run([nvcc, "-std=c++17", "-O3", f"-arch={arch}", "-cubin", str(source), "-o", str(cubin)],
                       check=True)
        sass = subprocess.run([nvdisasm, "-c", str(cubin)], check=True, capture_output=True, text=True).stdout
        return sass, cubin.read_bytes()


def kernel_bodies(sass):
    """[(demangled kernel name, [instruction text])] of nvdisasm's output."""
    parts = re.split(r"\n\s*\.text\.(\S+):\n", sass)
    names, bodies = parts[1::2], parts[2::2]
    demangled = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                               check=True).stdout.splitlines()
    return [(name, [m.group(1) for m in (re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?);", line)
                                         for line in body.splitlines()) if m])
            for name, body in zip(demangled, bodies)]


def split_loads(sass):
    """(demangled name, arithmetic instructions inside its load groups) per kernel that splits a group,
    and the demangled names of the kernels checked."""
    found = []
    checked = []
    for name, ins in kernel_bodies(sass):
        groups = load_groups(name, ins)
        if not groups:
            continue
        checked.append(name)
        between = sum(1 for group in groups for text in ins[group[0] + 1:group[-1]] if ARITHMETIC.match(text))
        if between:
            found.append((name, between))
    return found, checked


# Known to split, not benched: float64 gelu_and_mul, and float32 gelu_and_mul's 64-bit index form (inputs of
# 2^31 elements and more), split since the kernels wait for the grid before them (PDL, gpu_compat::launch):
# ptxas moves its second load behind the first one's math.
KNOWN_SPLIT = ("void (anonymous namespace)::gated_kernel<double, activation::ActAndMul<activation::GeluErf>",
               "void (anonymous namespace)::gated_kernel<float, activation::ActAndMul<activation::GeluErf>, long, "
               "16, 1024, 1, true>(")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("nvdisasm")
    parser.add_argument("source", nargs="?", default=str(DEFAULT_CU))
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--nvcc", default="/usr/local/cuda/bin/nvcc")
    args = parser.parse_args(argv)
    sass, cubin = compile_to_sass(args.nvcc, args.nvdisasm, args.source, args.arch)
    counts = register_counts(cubin)
    found, checked = split_loads(sass)
    for name, count in found:
        print(f"{count} arithmetic instructions between the loads: {name}")
    gated = sum(1 for name, _ in found if "gated_kernel" in name)
    gated_checked = sum(1 for name in checked if "gated_kernel" in name)
    print(f"{gated} of {gated_checked} gated kernels split their two loads")
    print(f"{len(found) - gated} of {len(checked) - gated_checked} elementwise kernels of two or more packs per "
          "thread split a group of loads")
    crowded, crowded_checked = crowded_kernels(counts)
    for name, registers in crowded:
        print(f"{registers} registers, fewer than {THREADS_PER_SM} threads per SM: {name}")
    print(f"{len(crowded)} of {crowded_checked} elementwise kernels in blocks of 128 or 256 take more than "
          f"{REGISTERS_PER_SM // THREADS_PER_SM} registers")
    unexpected = [name for name, _ in found if not name.startswith(KNOWN_SPLIT)]
    return 1 if unexpected or crowded else 0


if __name__ == "__main__":
    sys.exit(main())
