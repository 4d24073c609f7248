#!/usr/bin/env bash
# The main job on the embedded default: installs what is missing, builds
# kcheck, and audits the project's own sample build tree (the clean fixture
# tree, materialised by the build from committed sources), printing the report.
# Extra arguments go to kcheck (e.g. --format json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build_dir=${KCHECK_BUILD_DIR:-_build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target kcheck kcheck_tree_fixtures >/dev/null
"$build_dir/kcheck" "$@" "$build_dir/fixtures/trees/clean_cpu_variants_from_template"
