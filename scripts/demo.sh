#!/usr/bin/env bash
# The main job on the embedded default: installs what is missing, builds
# kcheck, builds the reference kernels (reference/kernels/relu, activation, rms_norm)
# with `kcheck build` for every backend this machine can build (CPU, CUDA
# when nvcc is present, ROCm when hipcc and a ROCm build of Torch are; a
# backend it cannot build is skipped with the reason), and prints the audit
# of each variant it wrote. The
# build fails on any error of that audit. Extra arguments go to `kcheck build`
# (e.g. --backends cpu, --format json).
#
# Auditing a whole tree (`kcheck reference/kernels/relu`) also judges completeness
# against the policy's required variants (Torch 2.12 and 2.13), which a build
# with this machine's Torch 2.11 cannot meet (KL006).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --build-only
build_dir=${KCHECK_BUILD_DIR:-_build}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build_dir" -j "$(nproc)" --target kcheck >/dev/null
for kernel in relu activation rms_norm; do
  "$build_dir/kcheck" build "reference/kernels/$kernel" "$@"
done
