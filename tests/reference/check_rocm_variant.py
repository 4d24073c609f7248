#!/usr/bin/env python3
"""Checks the rocm variant `kcheck build --backends rocm` wrote, without
kcheck's ELF reader: metadata.json names the backend and archs, and the native
module's .hip_fatbin holds an AMDGPU code object for each arch (listed and
unbundled by clang-offload-bundler, each checked to be an ELF for EM_AMDGPU of
that processor). Then audits the variant with kcheck and compares the
findings with the expected ones exactly.

Usage: check_rocm_variant.py KCHECK BUILD_DIR POLICY ARCH... [--expect CODE:SEVERITY ...]
"""
import argparse
import json
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile

EM_AMDGPU = 224
# EF_AMDGPU_MACH values (LLVM's ELF.h), the low byte of e_flags.
AMDGPU_MACH = {"gfx906": 0x2F, "gfx908": 0x30, "gfx90a": 0x3F, "gfx1030": 0x36}


def find_tool(name):
    for candidate in [shutil.which(name)] + [f"/usr/lib/llvm-{v}/bin/{name}" for v in (17, 16, 15, 14)]:
        if candidate and pathlib.Path(candidate).exists():
            return candidate
    sys.exit(f"{name} not found")


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def code_object_targets(module, scratch):
    bundler = find_tool("clang-offload-bundler")
    fatbin = scratch / "hip_fatbin.bin"
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.hip_fatbin", str(module), str(fatbin)], check=True)
    data = fatbin.read_bytes()
    magic = b"__CLANG_OFFLOAD_BUNDLE__"
    starts = [i for i in range(0, len(data), 8) if data.startswith(magic, i)]
    if not starts:
        fail(f"{module.name}: .hip_fatbin holds no offload bundle")
    processors = {}
    for n, start in enumerate(starts):
        bundle = scratch / f"bundle{n}.bin"
        end = starts[n + 1] if n + 1 < len(starts) else len(data)
        bundle.write_bytes(data[start:end])
        listed = subprocess.run([bundler, "--list", "--type=o", f"--input={bundle}"], check=True,
                                capture_output=True, text=True).stdout.split()
        for target in listed:
            if not target.startswith("hipv4-amdgcn-amd-amdhsa--"):
                continue
            code_object = scratch / f"bundle{n}-{target}.co"
            subprocess.run([bundler, "--unbundle", "--type=o", f"--targets={target}", f"--input={bundle}",
                            f"--output={code_object}"], check=True)
            header = code_object.read_bytes()[:64]
            processor = target.rsplit("--", 1)[1].split(":")[0]
            if header[:4] != b"\x7fELF" or struct.unpack_from("<H", header, 18)[0] != EM_AMDGPU:
                fail(f"{target}: not an AMDGPU ELF code object")
            mach = struct.unpack_from("<I", header, 48)[0] & 0xFF
            if processor in AMDGPU_MACH and mach != AMDGPU_MACH[processor]:
                fail(f"{target}: e_flags machine {mach:#x}, expected {AMDGPU_MACH[processor]:#x}")
            processors.setdefault(processor, 0)
            processors[processor] += 1
    return processors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kcheck")
    parser.add_argument("build_dir", type=pathlib.Path)
    parser.add_argument("policy")
    parser.add_argument("archs", nargs="+")
    parser.add_argument("--expect", nargs="*", default=[], help="CODE:SEVERITY of every expected finding")
    args = parser.parse_args()

    variants = sorted(args.build_dir.glob("torch*-rocm*-x86_64-linux"))
    if len(variants) != 1:
        fail(f"expected one rocm variant in {args.build_dir}, found {[v.name for v in variants]}")
    variant = variants[0]
    metadata = json.loads((variant / "metadata.json").read_text())
    expected_backend = {"type": "rocm", "archs": sorted(args.archs)}
    if metadata["backend"] != expected_backend:
        fail(f"metadata backend {metadata['backend']}, expected {expected_backend}")
    modules = list(variant.glob("*.abi3.so"))
    if len(modules) != 1 or modules[0].name != metadata["id"] + ".abi3.so":
        fail(f"expected {metadata['id']}.abi3.so, found {[m.name for m in modules]}")
    with tempfile.TemporaryDirectory() as scratch:
        processors = code_object_targets(modules[0], pathlib.Path(scratch))
    if sorted(processors) != sorted(args.archs):
        fail(f"code objects for {sorted(processors)}, expected {sorted(args.archs)}")
    print(f"{variant.name}: code objects {processors}")

    audit = subprocess.run([args.kcheck, "--format", "json", "--policy", args.policy, str(variant)],
                           capture_output=True, text=True)
    if audit.returncode not in (0, 1):
        fail(f"kcheck exited {audit.returncode}: {audit.stderr}")
    report = json.loads(audit.stdout)
    found = sorted(f"{f['code']}:{f['severity']}" for f in report["findings"])
    if found != sorted(args.expect):
        for finding in report["findings"]:
            print(f"  {finding['code']} {finding['severity']}: {finding.get('message', '')}")
        fail(f"findings {found}, expected {sorted(args.expect)}")
    print(f"{variant.name}: findings {found} as expected")


if __name__ == "__main__":
    main()
