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
#     here), and the wheel (built once, by the main suite).
#  2. _build-fuzz: the libFuzzer targets in fuzz/ (clang), each run for
#     KCHECK_FUZZ_SECONDS from its committed corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:exitcode=86:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Debug info enough for stack traces, -O1 for speed; nothing else differs from the main build.
light=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1"
       -DKCHECK_BUILD_BENCH=OFF)

cmake -S . -B _build-asan -G Ninja "${light[@]}" -DKCHECK_SANITIZE=address,undefined >/dev/null
cmake --build _build-asan -j "$jobs"
ctest --test-dir _build-asan --output-on-failure -j "$jobs" -LE 'reference|harness|wheel'

CC=clang CXX=clang++ cmake -S . -B _build-fuzz -G Ninja "${light[@]}" -DKCHECK_BUILD_TESTS=OFF \
  -DKCHECK_FUZZ=ON -DKCHECK_SANITIZE=address,undefined \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" >/dev/null
cmake --build _build-fuzz -j "$jobs" --target fuzz_elf fuzz_macho fuzz_metadata fuzz_build_config fuzz_python \
  fuzz_variant_name fuzz_policy
ASAN_OPTIONS=detect_leaks=1 ctest --test-dir _build-fuzz --output-on-failure -j "$jobs" -L fuzz
