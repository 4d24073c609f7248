#!/usr/bin/env python3
"""Materialises the tree fixtures of tests/fixtures/trees/ into the build tree.

Each case directory is copied, then:
- every `X.so.c` / `X.so.cpp` is compiled into `X.so` (the source is not
  copied); extra compiler flags come from a first line
  `// kcheck-fixture-flags: ...`, where `@TORCH_INCLUDE@` stands for the -I
  flags of the venv's Torch headers;
- every `metadata.json` whose "digest" is the string "@computed" gets the real
  digest of its variant (build-variants.md §4.5), computed here with hashlib
  independently of kcheck's own implementation;
- a case whose expected.toml says `base = "<template>"` starts with a copy of
  tests/fixtures/templates/<template>/ (one variant's files) as
  build/<variant>/ for each name in `variants` (default: the two CPU variants
  policy `hub` requires for x86_64-linux), with the case's own files laid
  over them, then `copy = [["from", "to"], ...]` and `remove = ["path", ...]` applied
  (paths relative to the case), so each case holds only what it is about;
- `[[make]]` entries of the case's expected.toml create what git cannot hold:
  `{ symlink = "path", target = "..." }`, `{ fifo = "path" }`,
  `{ hardlink = "path", target = "existing path" }`,
  `{ file = "path", text = "..." }` (for files .gitignore keeps out of the
  repository, such as `__pycache__/*.pyc`; paths relative to the case).
"""
import argparse
import base64
import glob
import hashlib
import json
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import tomllib

FLAGS_MARKER = "kcheck-fixture-flags:"
DEFAULT_VARIANTS = ["torch212-cxx11-cpu-x86_64-linux", "torch213-cxx11-cpu-x86_64-linux"]


def torch_include_flags(torch_root):
    found = sorted(glob.glob(os.path.join(torch_root, "lib", "python3*", "site-packages", "torch", "include")))
    if not found:
        return None
    include = found[-1]
    return [f"-I{include}", f"-I{include}/torch/csrc/api/include"]


def compile_native_sources(case_dir, args):
    for source in sorted(case_dir.rglob("*.so.c")) + sorted(case_dir.rglob("*.so.cpp")):
        first_line = source.read_text().splitlines()[0] if source.stat().st_size else ""
        flags = []
        if FLAGS_MARKER in first_line:
            flags = shlex.split(first_line.split(FLAGS_MARKER, 1)[1])
        expanded = []
        for flag in flags:
            if flag == "@TORCH_INCLUDE@":
                torch_flags = torch_include_flags(args.torch_root)
                if torch_flags is None:
                    sys.exit(f"{source}: needs Torch headers, but {args.torch_root} has no torch (run scripts/setup.sh)")
                expanded += torch_flags
            else:
                expanded.append(flag)
        compiler = args.cxx if source.suffix == ".cpp" else args.cc
        target = source.with_suffix("")  # X.so.c -> X.so
        language_flags = ["-std=c++17"] if source.suffix == ".cpp" else []
        command = [compiler, "-shared", "-fPIC", "-O1", *language_flags, "-o", str(target), str(source), *expanded]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"compiling fixture {source} failed:\n{' '.join(command)}\n{result.stderr}")
        source.unlink()


def covered_files(variant_root):
    """Variant-relative paths the digest covers, per build-variants.md §4.5."""
    covered = []
    for directory, subdirs, files in os.walk(variant_root, followlinks=False):
        rel_dir = os.path.relpath(directory, variant_root)
        parts = [] if rel_dir == "." else rel_dir.split(os.sep)
        if "__pycache__" in parts:
            continue
        for name in files + [d for d in subdirs if os.path.islink(os.path.join(directory, d))]:
            path = os.path.join(directory, name)
            if not os.path.isfile(path):  # dangling links, links to directories, special files
                continue
            rel = "/".join(parts + [name])
            if rel in ("metadata.json", "metadata.json.sigstore") or name.endswith(".pyc"):
                continue
            covered.append(rel)
    return sorted(covered, key=lambda p: p.encode())


def fill_computed_digests(case_dir):
    for metadata_path in sorted(case_dir.rglob("metadata.json")):
        text = metadata_path.read_text()
        try:
            metadata = json.loads(text)
        except json.JSONDecodeError:
            continue  # fixtures for invalid JSON stay as written
        if not isinstance(metadata, dict) or metadata.get("digest") != "@computed":
            continue
        variant_root = metadata_path.parent
        files = {}
        for rel in covered_files(variant_root):
            data = (variant_root / rel).read_bytes()
            files[rel] = base64.b64encode(hashlib.sha256(data).digest()).decode()
        metadata["digest"] = {"algorithm": "sha256", "files": files}
        metadata_path.write_text(json.dumps(metadata, indent=2) + "\n")


def apply_template(case, target, templates):
    expected = case / "expected.toml"
    spec = tomllib.loads(expected.read_text()) if expected.exists() else {}
    if "base" in spec:
        for variant in spec.get("variants", DEFAULT_VARIANTS):
            shutil.copytree(templates / spec["base"], target / "build" / variant, symlinks=True)
    shutil.copytree(case, target, symlinks=True, dirs_exist_ok=True)
    for source, destination in spec.get("copy", []):
        shutil.copytree(target / source, target / destination, symlinks=True)
    for path in spec.get("remove", []):
        victim = target / path
        if victim.is_dir() and not victim.is_symlink():
            shutil.rmtree(victim)
        else:
            victim.unlink()


def make_special_entries(case_dir):
    expected = case_dir / "expected.toml"
    if not expected.exists():
        return
    for entry in tomllib.loads(expected.read_text()).get("make", []):
        if "symlink" in entry:
            path = case_dir / entry["symlink"]
            path.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(entry["target"], path)
        elif "fifo" in entry:
            path = case_dir / entry["fifo"]
            path.parent.mkdir(parents=True, exist_ok=True)
            os.mkfifo(path)
        elif "file" in entry:
            path = case_dir / entry["file"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(entry["text"])
        elif "hardlink" in entry:
            path = case_dir / entry["hardlink"]
            path.parent.mkdir(parents=True, exist_ok=True)
            os.link(case_dir / entry["target"], path)
        else:
            sys.exit(f"{expected}: unknown [[make]] entry {entry}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--cxx", default="c++")
    parser.add_argument("--torch-root", default="")
    args = parser.parse_args()
    source = pathlib.Path(args.source)
    output = pathlib.Path(args.output)
    if output.exists():
        shutil.rmtree(output)
    output.mkdir(parents=True)
    templates = source.parent / "templates"
    for case in sorted(p for p in source.iterdir() if p.is_dir()):
        target = output / case.name
        apply_template(case, target, templates)
        compile_native_sources(target, args)
        make_special_entries(target)
        fill_computed_digests(target)


if __name__ == "__main__":
    main()
