#!/usr/bin/env python3
"""kcheck against its peers, side by side in one run, on the same files (issue #9).

Builds two corpora of kernel repositories (hard links, no copies):

  reference/  the reference kernels' build trees made by `kcheck build`
              (reference/kernels/<k>/build, and BUILD/reference/hub/<k>/build of the tests)
  large/      real binaries of this machine laid out as variants:
              torch-wheel-libs/build/torch211-cxx11-cu130-x86_64-linux/  (the torch wheel's lib/*.so)
              cuda-toolkit-libs/build/torch211-cxx11-cu130-x86_64-linux/ (the CUDA toolkit's lib64)
              each with a metadata.json whose sha256 digest covers every file

then runs, on every ELF file of a corpus (read once first, so every tool
starts from a warm page cache):

  kernel-abi-check 0.14.1  ObjectFile(f).check_manylinux("manylinux_2_28"), .check_python_abi("3.9")
  auditwheel 6.8.2         elf_find_versioned_symbols(f) against the manylinux_2_28 ceilings
  abi3audit 0.0.26         abi3audit --assume-minimum-abi3 3.9 FILE...  (one process, all files)
  kcheck                   kcheck scan CORPUS: every rule (KL, KM with the digest, KE, KP, KO)
                           --no-cache, then with a cold cache and again warm; and
                           --select KE alone (every KE rule, no digest hashing: the
                           like-for-like row for kernel-abi-check)

each tool as one process per corpus under /usr/bin/time -v (median of --runs
by wall time, --runs for kcheck, --peer-runs for the peers; CPU = user +
system; peak RSS). Checks = rule codes applied x
the units each applies to (files for the peers, variants for kcheck).

Usage: bench/peers.py [--build _build-md] [--runs 3] [--corpus DIR]
"""
import argparse
import base64
import datetime
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".venv")
PYTHON = os.path.join(VENV, "bin", "python")
VARIANT = "torch211-cxx11-cu130-x86_64-linux"

KERNEL_ABI_CHECK = """
import sys, kernel_abi_check as k
files = open(sys.argv[1]).read().split("\\n")
problems = 0
for f in filter(None, files):
    try:
        o = k.ObjectFile(f)
        problems += len(o.check_manylinux("manylinux_2_28")) + len(o.check_python_abi("3.9"))
    except Exception as error:
        problems += 1
print(problems)
"""

AUDITWHEEL = """
import sys, json, pathlib, auditwheel, auditwheel.elfutils as e
from elftools.elf.elffile import ELFFile
policy = next(p for p in json.load(open(pathlib.Path(auditwheel.__file__).parent / "policy/manylinux-policy.json"))
              if p["name"] == "manylinux_2_28")
limits = policy["symbol_versions"]["x86_64"]
allowed = {fam + "_" + v for fam in limits for v in limits[fam]}
problems = 0
for f in filter(None, open(sys.argv[1]).read().split("\\n")):
    with open(f, "rb") as handle:
        for lib, v in e.elf_find_versioned_symbols(ELFFile(handle)):
            if "_" in v and v.rsplit("_", 1)[0] in limits and v not in allowed:
                problems += 1
print(problems)
"""


def is_elf(path):
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"\x7fELF"
    except OSError:
        return False


def link_or_copy(source, destination):
    os.makedirs(os.path.dirname(destination), exist_ok=True)
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


def write_metadata(variant_dir, name):
    files = {}
    for directory, _, names in os.walk(variant_dir):
        for file_name in names:
            path = os.path.join(directory, file_name)
            relative = os.path.relpath(path, variant_dir)
            if relative == "metadata.json":
                continue
            digest = hashlib.sha256()
            with open(path, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 24), b""):
                    digest.update(block)
            files[relative] = base64.b64encode(digest.digest()).decode()
    metadata = {"backend": {"archs": ["9.0"], "type": "cuda"}, "digest": {"algorithm": "sha256", "files": files},
                "id": f"_{name}_cuda_0a1b2c3", "kernel-depends": [], "license": "bsd-3-clause", "name": name,
                "python-depends": [], "version": 1}
    with open(os.path.join(variant_dir, "metadata.json"), "w") as handle:
        json.dump(metadata, handle, indent=2, sort_keys=True)


def build_reference_corpus(corpus, build):
    target = os.path.join(corpus, "reference")
    if os.path.isdir(target):
        return target
    sources, planned = [], set()
    for kernel in ("relu", "activation", "rms_norm"):
        for candidate in (os.path.join(ROOT, "reference", "kernels", kernel, "build"),
                          os.path.join(build, "reference", "hub", kernel, "build"),
                          os.path.join(ROOT, "_build", "reference", "hub", kernel, "build")):
            if os.path.isdir(candidate):
                for variant in sorted(os.listdir(candidate)):
                    destination = os.path.join(target, kernel, "build", variant)
                    if destination not in planned:  # the first build of a variant found wins
                        planned.add(destination)
                        sources.append((os.path.join(candidate, variant), destination))
    for source, destination in sources:
        for directory, _, names in os.walk(source):
            for file_name in names:
                path = os.path.join(directory, file_name)
                link_or_copy(path, os.path.join(destination, os.path.relpath(path, source)))
    return target


def build_large_corpus(corpus):
    target = os.path.join(corpus, "large")
    if os.path.isdir(target):
        return target
    torch_lib = next((os.path.join(VENV, "lib", d, "site-packages", "torch", "lib")
                      for d in os.listdir(os.path.join(VENV, "lib")) if d.startswith("python3")), None)
    for repository, library_dir in (("torch-wheel-libs", torch_lib), ("cuda-toolkit-libs", "/usr/local/cuda/lib64")):
        if not library_dir or not os.path.isdir(library_dir):
            continue
        variant_dir = os.path.join(target, repository, "build", VARIANT)
        seen = set()
        for file_name in sorted(os.listdir(library_dir)):
            path = os.path.realpath(os.path.join(library_dir, file_name))
            if path in seen or not os.path.isfile(path) or not is_elf(path):
                continue
            seen.add(path)
            link_or_copy(path, os.path.join(variant_dir, os.path.basename(path)))
        write_metadata(variant_dir, repository.replace("-", "_"))
    return target


def elf_files(corpus):
    found = []
    for directory, _, names in os.walk(corpus):
        for file_name in sorted(names):
            path = os.path.join(directory, file_name)
            if not os.path.islink(path) and is_elf(path):
                found.append(path)
    return sorted(found)


def timed(command, limit=None):
    """Runs under /usr/bin/time -v: (wall s, cpu s, peak RSS MB, exit code, stdout); exit 124 = past `limit` s."""
    prefix = ["timeout", str(limit)] if limit else []
    result = subprocess.run(["/usr/bin/time", "-v"] + prefix + command, capture_output=True, text=True)
    err = result.stderr

    def field(name):
        match = re.search(re.escape(name) + r":\s*(\S+)", err)
        return match.group(1) if match else "0"

    wall_text = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    wall = 0.0
    for part in wall_text.split(":"):
        wall = wall * 60 + float(part)
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    return wall, cpu, int(field("Maximum resident set size (kbytes)")) / 1024, result.returncode, result.stdout


def median_run(command, runs, before=None, limit=None):
    samples = []
    for _ in range(runs):
        if before:
            before()
        samples.append(timed(command, limit))
    samples.sort(key=lambda sample: sample[0])
    return samples[len(samples) // 2]


def kcheck_checks(scan_json_text):
    document = json.loads(scan_json_text)
    checks = 0
    variants = 0
    for repository in document["repositories"]:
        report = repository.get("report", {})
        checks += len(report.get("rules_run", [])) * max(1, len(report.get("variants", [])))
        variants += len(report.get("variants", []))
    rules = len(document["repositories"][0]["report"]["rules_run"]) if document["repositories"] else 0
    return checks, rules, variants


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "_build-md"))
    parser.add_argument("--runs", type=int, default=3, help="runs of each kcheck command (median by wall)")
    parser.add_argument("--peer-runs", type=int, default=1, help="runs of each peer (abi3audit takes minutes)")
    parser.add_argument("--tools", default="kcheck,kernel-abi-check,auditwheel,abi3audit",
                        help="which tools to run (comma-separated)")
    parser.add_argument("--corpora", default="reference,large", help="which corpora (comma-separated)")
    parser.add_argument("--peer-timeout", type=int, default=900, help="seconds before a peer's run is stopped")
    parser.add_argument("--corpus", default=os.path.join(ROOT, "_build-md", "peer-corpus"))
    arguments = parser.parse_args()
    kcheck = os.path.join(arguments.build, "kcheck")
    abi3audit = os.path.join(VENV, "bin", "abi3audit")
    corpora = []
    if "reference" in arguments.corpora:
        corpora.append(("reference kernels", build_reference_corpus(arguments.corpus, arguments.build)))
    if "large" in arguments.corpora:
        corpora.append(("large (torch + CUDA libraries)", build_large_corpus(arguments.corpus)))

    cpu_model = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                     platform.processor())
    print(f"machine: {os.cpu_count()} vCPU {cpu_model}, {platform.system()} {platform.release()}; "
          f"date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; "
          f"kcheck: median of {arguments.runs} runs by wall time, peers: {arguments.peer_runs} run(s); load average at start {os.getloadavg()[0]:.1f}\n")
    print("| corpus | tool | files | wall | CPU (user+sys) | peak RSS | checks | ratio to kcheck (CPU) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for corpus_name, corpus in corpora:
        files = elf_files(corpus)
        size = sum(os.path.getsize(f) for f in files) / 1e9
        with tempfile.NamedTemporaryFile("w", delete=False, suffix=".files") as listing:
            listing.write("\n".join(files))
        cache = tempfile.mkdtemp(prefix="kcheck-peer-cache-")
        for path in files:  # every tool then starts from a warm page cache
            with open(path, "rb") as handle:
                while handle.read(1 << 24):
                    pass
        rows = []
        tools = arguments.tools.split(",")
        kcheck_cpu = None
        if "kcheck" in tools:
            wall, cpu, rss, code, out = median_run([kcheck, "scan", corpus, "--no-cache", "--format", "json"],
                                                   arguments.runs)
            checks, rules, variants = kcheck_checks(out)
            rows.append(("kcheck scan --no-cache", wall, cpu, rss, f"{checks} ({rules} rules x {variants} variants)"))
            kcheck_cpu = cpu
            wall, cpu, rss, code, out = median_run(
                [kcheck, "scan", corpus, "--no-cache", "--select", "KE", "--format", "json"], arguments.runs)
            ke_checks, ke_rules, _ = kcheck_checks(out)
            rows.append(("kcheck scan --no-cache --select KE (no digest)", wall, cpu, rss,
                         f"{ke_checks} ({ke_rules} rules x {variants} variants)"))
            wall, cpu, rss, code, out = median_run(
                [kcheck, "scan", corpus, "--cache", cache, "--format", "json"], arguments.runs,
                before=lambda: (shutil.rmtree(cache, ignore_errors=True), os.makedirs(cache)))
            rows.append(("kcheck scan, cold cache", wall, cpu, rss, f"{checks}"))
            subprocess.run([kcheck, "scan", corpus, "--cache", cache, "--format", "json"], capture_output=True)
            wall, cpu, rss, code, out = median_run([kcheck, "scan", corpus, "--cache", cache, "--format", "json"],
                                                   arguments.runs)
            rows.append(("kcheck scan, warm cache (rescan)", wall, cpu, rss, f"{checks}"))
        if "kernel-abi-check" in tools:
            wall, cpu, rss, code, out = median_run([PYTHON, "-c", KERNEL_ABI_CHECK, listing.name], arguments.peer_runs,
                                                   limit=arguments.peer_timeout)
            rows.append(("kernel-abi-check 0.14.1", wall, cpu, rss, f"{2 * len(files)} (2 x {len(files)} files)"))
        if "auditwheel" in tools:
            wall, cpu, rss, code, out = median_run([PYTHON, "-c", AUDITWHEEL, listing.name], arguments.peer_runs,
                                                   limit=arguments.peer_timeout)
            rows.append(("auditwheel 6.8.2 (symbol versions)", wall, cpu, rss, f"{len(files)} (1 x {len(files)} files)"))
        if "abi3audit" in tools:
            # abi3audit refuses a file whose name is not an extension module's
            # ("does not look like a valid ... shared object"): give it hard
            # links named NAME.abi3.so, or it measures only its refusals.
            view = os.path.join(arguments.corpus, "abi3audit-view", re.sub(r"\W+", "-", corpus_name))
            shutil.rmtree(view, ignore_errors=True)
            named = []
            for index, path in enumerate(files):
                stem = re.sub(r"\W+", "_", os.path.basename(path).split(".abi3.so")[0])
                named.append(os.path.join(view, f"{index:03d}_{stem}.abi3.so"))
                link_or_copy(path, named[-1])
            # its summary goes to stderr (where /usr/bin/time writes too): join it to stdout
            wall, cpu, rss, code, out = median_run(
                ["sh", "-c", 'COLUMNS=400 "$0" --assume-minimum-abi3 3.9 --summary "$@" 2>&1', abi3audit] + named,
                arguments.peer_runs, limit=arguments.peer_timeout)
            scanned = sum(int(n) for n in re.findall(r"(\d+) extensions? scanned", out))
            rows.append(("abi3audit 0.0.26", wall, cpu, rss, f"{scanned} (1 x {scanned} files scanned)"))
        for tool, wall, cpu, rss, checks_text in rows:
            stopped = ">" if wall >= arguments.peer_timeout else ""  # stopped by the timeout
            print(f"| {corpus_name} | {tool} | {len(files)} ({size:.2f} GB) | {stopped}{wall:.2f} s | {stopped}{cpu:.2f} s | "
                  f"{rss:.0f} MB | {checks_text} | {f'{cpu / kcheck_cpu:.2f}x' if kcheck_cpu else '-'} |", flush=True)
        shutil.rmtree(cache, ignore_errors=True)
        os.unlink(listing.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
