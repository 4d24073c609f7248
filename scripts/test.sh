#!/usr/bin/env bash
# Runs every test: installs what is missing, builds kcheck with its tests,
# fixtures and benchmarks, then runs the whole suite with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build_dir=${KCHECK_BUILD_DIR:-_build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
# ASan/UBSan/LSan build of the suite and the fuzz targets (issue #8); KCHECK_SKIP_SANITIZERS=1 skips them.
[[ ${KCHECK_SKIP_SANITIZERS:-0} == 1 ]] || scripts/test-sanitizers.sh
