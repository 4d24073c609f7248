#!/usr/bin/env bash
# Runs every test: installs what is missing, builds kcheck with its tests,
# fixtures and benchmarks, then runs the whole suite with CTest, then the
# sanitizer and fuzz builds. Each stage prints how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."
stage() {  # <name> <command...>: runs a stage and says how long it took
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "test.sh: stage '$name' took $((SECONDS - start)) s" >&2
}
stage setup scripts/setup.sh
build_dir=${KCHECK_BUILD_DIR:-_build}
# The `dev` preset (CMakePresets.json): RelWithDebInfo, warnings as errors.
# Configure's output stays visible: it says what is left out and why
# (no Torch: no kcheck_worker and no harness tests).
stage configure cmake --preset dev -B "$build_dir"
stage build cmake --build "$build_dir" -j "$(nproc)"
stage tests ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
# ASan/UBSan/LSan build of the suite and the fuzz targets (issue #8); KCHECK_SKIP_SANITIZERS=1 skips them.
[[ ${KCHECK_SKIP_SANITIZERS:-0} == 1 ]] || stage sanitizers scripts/test-sanitizers.sh
echo "test.sh: all stages passed in $SECONDS s" >&2
