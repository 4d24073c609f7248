#!/usr/bin/env bash
# A longer fuzz campaign than CI's 20 s per target, by hand (fuzz/README.md):
# builds the fuzz targets (clang, ASan + UBSan) in _build-fuzz, runs each
# named target for SECONDS with a 1 MiB stack from the committed corpus (the
# hand-made fuzz/corpus/<target>/, the generated fuzz/generated/<target>.tar.xz
# and the seed folders fuzz/seed_dirs.txt names) into a scratch directory, and
# prints one line per target: executions, new inputs, crashes. Crash artifacts
# are left in the scratch directory for triage; KCHECK_FUZZ_NEW=<scratch>
# scripts/fuzz-minimise.sh keeps what is new.
#
#   scripts/fuzz-long.sh [SECONDS] [TARGET...]      (default 300 s; every target)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
shift || true
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for dir in fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi
build=${KCHECK_FUZZ_BUILD_DIR:-_build-fuzz}
[[ -f $build/build.ninja ]] || cmake --preset fuzz -B "$build" >/dev/null
cmake --build "$build" --target "${targets[@]/#/fuzz_}" >/dev/null
work=$(mktemp -d /tmp/kcheck-fuzz-long-XXXXXX)
echo "fuzz campaign: ${seconds} s per target, $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ); work in $work"
for target in "${targets[@]}"; do
  mkdir -p "$work/$target/new" "$work/$target/crashes" "$work/$target/generated"
  [[ ! -f fuzz/generated/$target.tar.xz ]] || tar -xJf "fuzz/generated/$target.tar.xz" -C "$work/$target/generated"
  dict=fuzz/dict/$target.dict
  mapfile -t seed_dirs < <(awk -v target="$target" '$1 == target && NF == 2 {print $2}' fuzz/seed_dirs.txt)
  log=$work/$target/log
  status=0
  (ulimit -s 1024; "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
     -artifact_prefix="$work/$target/crashes/" ${dict:+$( [[ -f $dict ]] && echo -dict="$dict")} \
     "$work/$target/new" "fuzz/corpus/$target" "$work/$target/generated" "${seed_dirs[@]}" >"$log" 2>&1) || status=$?
  executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  [[ -n $executions ]] || executions=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  crashes=$(find "$work/$target/crashes" -type f | wc -l)
  echo "fuzz_$target: exit $status, ${executions:-?} executions, $(find "$work/$target/new" -type f | wc -l) new inputs, $crashes crashes"
done
