#!/usr/bin/env bash
# Issue #8: the sanitizer build and the fuzz targets (run by scripts/test.sh
# after the main suite; about 8 minutes on 2 cores).
#  1. _build-asan: kcheck and every GoogleTest suite with ASan + UBSan (GCC, as
#     the main build, so the compiled fixtures are byte for byte the same);
#     LeakSanitizer is on, so a leak in kcheck (the CLI tests run it) or in a
#     test fails. ASan's exit code 86 keeps a sanitizer report apart from
#     kcheck's own statuses 1 and 2. Left out: the reference kernel builds
#     (they build Torch extensions, minutes each, and are run by the main
#     suite) and the dynamic harness (kcheck_worker links libtorch, not built
#     here), and the wheel (built once, by the main suite), and what runs
#     external compilers or services more than kcheck's own code: the fixture
#     kernel builds (label fixture_kernel), the Slurm cluster (slurm) and the
#     tests that download (network). The `asan` test preset's filter says so.
#  2. _build-fuzz: the libFuzzer targets in fuzz/ (clang), each run for
#     KCHECK_FUZZ_SECONDS from its committed corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:exitcode=86:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The `asan` and `fuzz` presets (CMakePresets.json): debug info enough for
# stack traces, -O1 for speed; nothing else differs from the main build.
cmake --preset asan
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs"

cmake --preset fuzz
cmake --build --preset fuzz -j "$jobs"
ASAN_OPTIONS=detect_leaks=1 ctest --preset fuzz -j "$jobs"
