#!/usr/bin/env bash
# Whole-process comparison on large shared libraries: wall time (median of
# RUNS) and peak RSS of
#   readelf -d -V --dyn-syms FILE                     (the baseline)
#   ke_rules_on_file FILE                             (kcheck: facts + all KE rules)
#   kcheck FILE                                       (the CLI, when it is built)
#   kernel-abi-check 0.14.1: ObjectFile(FILE).check_manylinux("manylinux_2_28") + .check_python_abi("3.9")
#   auditwheel 6.8.2: elf_find_versioned_symbols + manylinux_2_28 ceilings
# Each run goes through `/usr/bin/time -f %M` for the peak RSS (the child's
# ru_maxrss seen from Python would include the forked Python before exec);
# wall time is taken around it with perf_counter, finer than time's 10 ms.
# Usage: bench/compare_elf.sh [BUILD_DIR] [FILE...]   (RUNS=15 by default)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/_build-elf}
shift || true
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  for f in /usr/local/cuda/lib64/libcublasLt.so.13 /usr/local/cuda/lib64/libcufft.so.12 /usr/local/cuda/lib64/libcublas.so.13; do
    [ -e "$f" ] && files+=("$(readlink -f "$f")")
  done
fi
python=${KCHECK_VENV_PYTHON:-$root/.venv/bin/python}
RUNS=${RUNS:-15} BUILD="$build" PYTHON="$python" "$python" - "${files[@]}" <<'PY'
import os, statistics, subprocess, sys, time, platform, datetime

runs = int(os.environ["RUNS"])
build, python = os.environ["BUILD"], os.environ["PYTHON"]
kernel_abi_check = ("import sys, kernel_abi_check as k; o = k.ObjectFile(sys.argv[1]); "
                    "o.check_manylinux('manylinux_2_28'); o.check_python_abi('3.9')")
auditwheel = ("import sys, json, pathlib, auditwheel, auditwheel.elfutils as e; from elftools.elf.elffile import ELFFile\n"
              "policy = next(p for p in json.load(open(pathlib.Path(auditwheel.__file__).parent / 'policy/manylinux-policy.json')) if p['name'] == 'manylinux_2_28')\n"
              "limits = policy['symbol_versions']['x86_64']\n"
              "with open(sys.argv[1], 'rb') as f:\n"
              "  bad = [(lib, v) for lib, v in e.elf_find_versioned_symbols(ELFFile(f))\n"
              "         if '_' in v and v.rsplit('_', 1)[0] in limits and v not in {n for fam in limits for n in (fam + '_' + x for x in limits[fam])}]\n")

def tools(path):
    yield "readelf -d -V --dyn-syms", ["readelf", "-d", "-V", "--dyn-syms", path]
    yield "kcheck ke_rules_on_file", [f"{build}/bench/ke_rules_on_file", path]
    if os.access(f"{build}/kcheck", os.X_OK):
        yield "kcheck CLI", [f"{build}/kcheck", path]
    yield "kernel-abi-check 0.14.1", [python, "-c", kernel_abi_check, path]
    yield "auditwheel 6.8.2 (symbol versions)", [python, "-c", auditwheel, path]

def measure(command):
    walls, peaks = [], []
    rss_file = f"/tmp/kcheck-compare-elf-{os.getpid()}.rss"
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file] + command,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
        peaks.append(int(open(rss_file).read().split()[-1]))
    os.remove(rss_file)
    return statistics.median(walls), max(peaks), result.returncode

cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
print(f"machine: {os.cpu_count()} vCPU {cpu}, {platform.system()} {platform.release()}; "
      f"date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; runs per cell: {runs}; load: {os.getloadavg()[0]:.1f}\n")
print("| file | tool | median wall | ratio to readelf | peak RSS | exit |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for path in sys.argv[1:]:
    baseline = None
    size = os.path.getsize(path) / 1e6
    for name, command in tools(path):
        wall, peak, code = measure(command)
        baseline = baseline or wall
        print(f"| {os.path.basename(path)} ({size:.0f} MB) | {name} | {wall * 1000:.1f} ms | {wall / baseline:.2f}x | {peak / 1024:.1f} MB | {code} |", flush=True)
PY
