#!/usr/bin/env python3
"""KE012's source paths on real libraries: this kcheck against an earlier one, and against strings (issue #32).

    bench/ke012_differential.py --before OLD_KCHECK [--build _build] [LIBRARY...]

For each library (default: the first 20, largest first, of the venv's Torch
lib/ and CUDA's lib64), prints the source paths `kcheck --select KE012`
reports for .rodata and the fat binaries, by this build and by OLD_KCHECK
(one pass over each section), and by an independent plain scan: the
sections' bytes (objcopy), their printable runs (as binutils' strings
reads them), and in each run every builder path that starts it or follows a
character no path holds and names a compiled source, the first four distinct
in file order. With KE014 selected too, the fat binary's headers are walked
inside KE012's scan (issue #32): it also compares the findings of
`--select KE012,KE014` with OLD_KCHECK's, and this build's KE014 finding
there with that of `--select KE014` alone. Exits 1 when this build differs
from OLD_KCHECK or from the plain scan on any library. Every figure it
prints is a count of paths or findings.
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


def plain_scan(library, sections):
    """The first MAX_PATHS distinct source paths of builders in the sections' printable runs."""
    paths = []
    with tempfile.TemporaryDirectory() as scratch:
        for section in sections:
            dump = os.path.join(scratch, "section")
            subprocess.run(["objcopy", "-O", "binary", f"--only-section={section}", library, dump], check=True)
            data = open(dump, "rb").read()
            # A path is a whole run of path characters (printable, no quotes)
            # that starts with a slash: a slash inside a run follows a path
            # character and starts none.
            for run in re.finditer(rb"[\x21\x23-\x26\x28-\x7e]+", data):
                text = run.group()
                if text.startswith(tuple(prefix.encode() for prefix in PREFIXES)) and text.endswith(SOURCE_EXTENSIONS):
                    path = text.decode()
                    if path not in paths and len(paths) < MAX_PATHS:
                        paths.append(path)
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="an earlier kcheck executable")
    parser.add_argument("--build", default=os.path.join(ROOT, "_build"))
    parser.add_argument("libraries", nargs="*")
    arguments = parser.parse_args()
    kcheck = os.path.join(arguments.build, "kcheck")
    libraries = arguments.libraries or default_libraries()
    print(machine_line())
    differing = 0
    for library in libraries:
        now, before = kcheck_paths(kcheck, library), kcheck_paths(arguments.before, library)
        rodata, device = scanned_sections(library)
        plain = {"read-only data": plain_scan(library, rodata), "device code": plain_scan(library, device)}
        # The findings name the first three paths of each (join_first): each is
        # there, in the finding about its kind of section.
        named = all(any(path in message and kind in message for message in now)
                    for kind, paths in plain.items() for path in paths[:3])
        source_findings = [message for message in now if "embeds source paths" in message]
        both = kcheck_paths(kcheck, library, "KE012,KE014")
        both_before = kcheck_paths(arguments.before, library, "KE012,KE014")
        ke014, ke014_alone = [m for m in both if m.startswith('["KE014"')], kcheck_paths(kcheck, library, "KE014")
        agree = (now == before and named and len(source_findings) == sum(bool(paths) for paths in plain.values())
                 and both == both_before and ke014 == ke014_alone)
        differing += not agree
        print(f"{'same' if agree else 'DIFFERS'}  {os.path.basename(library)} ({os.path.getsize(library) >> 20} MB): "
              f"{len(now)} KE012 findings (before: {len(before)}); plain scan: "
              f"{len(plain['read-only data'])} paths in read-only data, {len(plain['device code'])} in device code; "
              f"KE012+KE014: {len(both)} findings (before: {len(both_before)}), "
              f"KE014 {'as' if ke014 == ke014_alone else 'NOT as'} alone")
        for message in source_findings:
            print(f"    {message}")
        for kind, paths in plain.items():
            for path in paths:
                print(f"    plain scan, {kind}: {path}")
    print(f"{len(libraries) - differing} of {len(libraries)} libraries: the same source paths")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
