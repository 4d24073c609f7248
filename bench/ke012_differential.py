#!/usr/bin/env python3
"""KE012's source paths on real libraries: this kcheck against an independent plain scan (issue #32).

    bench/ke012_differential.py [--before OLD_KCHECK] [--build _build] [LIBRARY...]

For each library (default: the first 20, largest first, of the venv's Torch
lib/ and CUDA's lib64), prints the source paths `kcheck --select KE012`
reports for .rodata and the fat binaries, and those of an independent plain
scan: the sections' bytes (objcopy), their printable runs (as binutils'
strings reads them), and in each run every builder path that starts it or
follows a character no path holds and names a compiled source; then, for
the device code, the same over what each compressed entry of .nv_fatbin,
then of __nv_relfatbin (nvcc -rdc), decompresses to, each entry on its own
and in section order, decompressed by the zstd command or, for an LZ4
block, which no command reads, by a decoder restated here from LZ4's block
format (the entries within kcheck's bound, restated: 64 times the
section's size, 4 GiB at most); the first four distinct paths of each kind
in that order. The entries neither could decompress to their declared
size, those past the bound, and the compressed clang offload bundles of
.hip_fatbin (magic CCOB at a 4096-byte boundary, which neither
decompresses) must be exactly the ones KE012's warning counts as not
searched. With KE014 selected too, the fat binary's headers are walked
inside KE012's scan: it also compares this build's KE014 finding there with
that of `--select KE014` alone. With OLD_KCHECK it prints how its findings
differ from this build's (a kcheck from before #32's decompression finds
fewer paths where the device code is compressed). Exits 1 when this build
differs from the plain scan or KE014 from itself on any library. Every
figure it prints is a count of paths, entries or findings.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fatbin_sections import compressed_entries  # noqa: E402
from paired import machine_line  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PREFIXES = ("/home/", "/nix/store/", "/root/", "/Users/", "/tmp/", "/build/", "/builds/", "/workspace/", "/__w/")
# What names a compiled source (checker/support/name_shapes.cpp, names_compiled_source), restated.
SOURCE_EXTENSIONS = (b".c", b".cc", b".cpp", b".cxx", b".cu", b".cuh", b".h", b".hh", b".hpp", b".hxx", b".inl", b".hip",
                     b".mm", b".metal")
MAX_PATHS = 4


def default_libraries():
    torch_lib = glob.glob(os.path.join(ROOT, ".venv/lib/python3*/site-packages/torch/lib/*.so*"))
    cuda = glob.glob("/usr/local/cuda/lib64/*.so.*")
    files = {os.path.realpath(path) for path in torch_lib + cuda if os.path.isfile(path)}
    elf = [path for path in files if open(path, "rb").read(4) == b"\x7fELF"]
    return sorted(elf, key=os.path.getsize, reverse=True)[:20]


def kcheck_paths(kcheck, library, select="KE012"):
    """The findings of the rules `select` names, as the JSON report holds them (KE012's message names each path)."""
    result = subprocess.run([kcheck, "--select", select, "--format", "json", library], capture_output=True, text=True)
    if result.returncode not in (0, 1):
        sys.exit(f"{kcheck} exited {result.returncode} on {library}: {result.stderr}")
    return sorted(json.dumps([finding["code"], finding["message"], finding["location"]])
                  for finding in json.loads(result.stdout)["findings"])


def scanned_sections(library):
    out = subprocess.run(["readelf", "-S", "-W", library], capture_output=True, text=True, check=True).stdout
    names = re.findall(r"\]\s+(\S+)\s+(?:PROGBITS|NOBITS)", out)
    rodata = [name for name in names if name == ".rodata" or name.startswith(".rodata.")]
    device = [name for name in names if name in (".nv_fatbin", "__nv_relfatbin", ".hip_fatbin")]
    return rodata, device


PATH_BYTES = frozenset(set(range(0x21, 0x7f)) - {ord('"'), ord("'")})


def add_paths(data, paths):
    """Adds the builder source paths among the printable runs of `data` to `paths`, up to MAX_PATHS distinct."""
    # A path is a whole run of path characters (printable, no quotes) that
    # starts with a slash: a slash inside a run follows a path character and
    # starts none. Each prefix is found with bytes.find (gigabytes of
    # decompressed device code), the runs they start taken in file order.
    starts = []
    for prefix in PREFIXES:
        at = data.find(prefix.encode())
        while at >= 0:
            if at == 0 or data[at - 1] not in PATH_BYTES:
                starts.append(at)
            at = data.find(prefix.encode(), at + 1)
    for start in sorted(starts):
        end = start
        while end < len(data) and data[end] in PATH_BYTES:
            end += 1
        text = data[start:end]
        if text.endswith(SOURCE_EXTENSIONS):
            path = text.decode()
            if path not in paths and len(paths) < MAX_PATHS:
                paths.append(path)


def lz4_block(data, size):
    """What an LZ4 block (lz4's lz4_Block_format.md) decompresses to, or None when it is not one of `size`
    bytes: restated from the format, since no command reads a raw block."""
    out, at = bytearray(), 0
    try:
        while True:
            token = data[at]
            at += 1
            literals = token >> 4
            if literals == 15:
                while True:
                    literals += data[at]
                    at += 1
                    if data[at - 1] != 255:
                        break
            out += data[at:at + literals]
            at += literals
            if at >= len(data):
                break
            offset = data[at] | data[at + 1] << 8
            at += 2
            length = token & 15
            if length == 15:
                while True:
                    length += data[at]
                    at += 1
                    if data[at - 1] != 255:
                        break
            if offset == 0 or offset > len(out) or len(out) + length + 4 > size:
                return None
            for _ in range(length + 4):
                out.append(out[-offset])
    except IndexError:
        return None
    return bytes(out) if len(out) == size else None


def section_bytes(library, section, scratch):
    dump = os.path.join(scratch, "section")
    subprocess.run(["objcopy", "-O", "binary", f"--only-section={section}", library, dump], check=True)
    return open(dump, "rb").read()


def decompressed_entries(fatbin, scratch):
    """What each compressed entry of a CUDA fat binary decompresses to, in section order (None for one that does
    not decompress to its declared size), and how many lie past kcheck's bound (restated)."""
    bound = min(4 << 30, 64 * len(fatbin))
    declared, outputs, past_bound = 0, [], 0
    entries = list(compressed_entries(fatbin))
    for index, (method, payload, size) in enumerate(entries):
        if size > bound - declared:  # this one and every later one: past the bound
            past_bound = len(entries) - index
            break
        declared += size
        if method == "lz4":
            outputs.append(lz4_block(payload, size))
        elif method == "zstd":
            frame = os.path.join(scratch, f"entry{index:07d}.zst")
            with open(frame, "wb") as out:
                out.write(payload)
            outputs.append((frame, size))
        else:
            outputs.append(None)
    frames = [output for output in outputs if isinstance(output, tuple)]
    for chunk in range(0, len(frames), 2000):  # one zstd command for many entries
        subprocess.run(["zstd", "-d", "-q", "-f", "--no-progress"] + [frame for frame, _ in frames[chunk:chunk + 2000]],
                       stderr=subprocess.DEVNULL)

    def read(output):
        if not isinstance(output, tuple):
            return output
        frame, size = output
        name = frame[:-len(".zst")]
        data = open(name, "rb").read() if os.path.exists(name) else None
        for path in (frame, name):
            if os.path.exists(path):
                os.remove(path)
        return data if data is not None and len(data) == size else None

    return (read(output) for output in outputs), past_bound


def plain_scan(library, sections):
    """The first MAX_PATHS distinct source paths of builders in the sections' printable runs, then in what the
    compressed entries of .nv_fatbin and __nv_relfatbin decompress to, in that order; and how many compressed
    entries were not read."""
    paths, unread = [], 0
    with tempfile.TemporaryDirectory() as scratch:
        fat_binaries = {}
        for section in sections:
            data = section_bytes(library, section, scratch)
            add_paths(data, paths)
            if section in (".nv_fatbin", "__nv_relfatbin"):
                fat_binaries[section] = data
            if section == ".hip_fatbin":  # compressed clang offload bundles at 4096-byte boundaries (clang's
                # alignment of each translation unit's HIP fat binary): neither side decompresses them
                unread += sum(data.startswith(b"CCOB", at) for at in range(0, len(data), 4096))
        for section in (".nv_fatbin", "__nv_relfatbin"):
            if section not in fat_binaries:
                continue
            outputs, past_bound = decompressed_entries(fat_binaries[section], scratch)
            unread += past_bound
            for data in outputs:
                if data is None:
                    unread += 1
                elif len(paths) < MAX_PATHS:
                    add_paths(data, paths)
    return paths, unread


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", help="an earlier kcheck executable")
    parser.add_argument("--build", default=os.path.join(ROOT, "_build"))
    parser.add_argument("libraries", nargs="*")
    arguments = parser.parse_args()
    kcheck = os.path.join(arguments.build, "kcheck")
    libraries = arguments.libraries or default_libraries()
    print(machine_line())
    differing = 0
    for library in libraries:
        now = kcheck_paths(kcheck, library)
        rodata, device = scanned_sections(library)
        rodata_paths, _ = plain_scan(library, rodata)
        device_paths, unread = plain_scan(library, device)
        plain = {"read-only data": rodata_paths, "device code": device_paths}
        # The findings name the first three paths of each (join_first): each is
        # there, in the finding about its kind of section.
        named = all(any(path in message and kind in message for message in now)
                    for kind, paths in plain.items() for path in paths[:3])
        source_findings = [message for message in now if "embeds source paths" in message]
        unsearched = [message for message in now if "not searched for build paths" in message]
        counted = int(re.search(r'"(\d+) compressed entr', unsearched[0]).group(1)) if unsearched else 0
        both = kcheck_paths(kcheck, library, "KE012,KE014")
        ke014, ke014_alone = [m for m in both if m.startswith('["KE014"')], kcheck_paths(kcheck, library, "KE014")
        agree = (named and len(source_findings) == sum(bool(paths) for paths in plain.values())
                 and counted == unread and len(unsearched) == bool(unread) and ke014 == ke014_alone)
        differing += not agree
        print(f"{'same' if agree else 'DIFFERS'}  {os.path.basename(library)} ({os.path.getsize(library) >> 20} MB): "
              f"{len(now)} KE012 findings; plain scan: {len(rodata_paths)} paths in read-only data, "
              f"{len(device_paths)} in device code, {unread} compressed entries not read "
              f"(KE012 counts {counted} not searched); KE014 {'as' if ke014 == ke014_alone else 'NOT as'} alone")
        for message in source_findings + unsearched:
            print(f"    {message}")
        for kind, paths in plain.items():
            for path in paths:
                print(f"    plain scan, {kind}: {path}")
        if arguments.before:
            before = kcheck_paths(arguments.before, library)
            print(f"    before: {'the same findings' if before == now else f'{len(before)} findings, differing:'}")
            for message in sorted(set(before) ^ set(now)):
                print(f"      {'now only' if message in now else 'before only'}: {message}")
    print(f"{len(libraries) - differing} of {len(libraries)} libraries: the same source paths and unsearched entries")
    return 1 if differing else 0

if __name__ == "__main__":
    sys.exit(main())
