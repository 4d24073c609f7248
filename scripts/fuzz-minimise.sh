#!/usr/bin/env bash
# Minimises the committed fuzz corpora (issue #18), by hand, with the
# libFuzzer targets of a fuzz build (fuzz/README.md). A surface's corpus is
#  - fuzz/corpus/<surface>/: the hand-made inputs, plain files kept as they
#    are: the seeds (`seed_*`), the crash reproducers (`regression_*`) and any
#    other name that is not 40 hex digits;
#  - fuzz/generated/<surface>.tar.xz: the inputs the fuzzer made (named by the
#    SHA-1 of their bytes), as one reproducible xz tar: mutants of a few seeds
#    compress about 70-fold, so the whole corpus keeps its coverage in a few
#    hundred KB.
# The generated inputs (the archive's, any 40-hex-digit file left in
# fuzz/corpus/<surface>/, and with KCHECK_FUZZ_NEW=DIR the new inputs of a
# campaign in DIR/<surface>/new/, as scripts/fuzz-long.sh leaves them) are
# replaced by what `-merge=1` keeps of them: the merge starts from the
# hand-made files and the seed folders fuzz/seed_dirs.txt names (test
# fixtures, reference kernels), so a generated input stays only where it adds
# coverage (features) that they and the smaller generated inputs do not.
# Each surface is run with a 1 MiB stack, as CTest runs it, one merge at a
# time. It prints one line per surface: files and bytes before and after, and
# the coverage before and after as `-runs=0` reports it (`INITED cov: N ft: M`;
# new libFuzzer runs can differ by a few features from one run to the next).
# Nothing is changed in a surface whose merge fails.
#
#   scripts/fuzz-minimise.sh [SURFACE...]            (default: every fuzz/corpus/*/)
#   KCHECK_FUZZ_BUILD_DIR=_build-fuzz                (where fuzz/fuzz_<surface> are)
#   KCHECK_FUZZ_NEW=DIR                              (also DIR/<surface>/new/*)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${KCHECK_FUZZ_BUILD_DIR:-_build-fuzz}
new_inputs=${KCHECK_FUZZ_NEW:-}
surfaces=("$@")
if [[ ${#surfaces[@]} -eq 0 ]]; then
  for dir in fuzz/corpus/*/; do surfaces+=("$(basename "$dir")"); done
fi

# Every surface's corpus and binary first, so that nothing is half done.
for surface in "${surfaces[@]}"; do
  if [[ ! -d fuzz/corpus/$surface ]]; then
    echo "fuzz-minimise: no corpus fuzz/corpus/$surface/" >&2
    exit 2
  fi
  if [[ ! -x $build/fuzz/fuzz_$surface ]]; then
    echo "fuzz-minimise: $build/fuzz/fuzz_$surface is missing; build the fuzz targets first" >&2
    echo "  (fuzz/README.md: cmake --build --preset fuzz), or set KCHECK_FUZZ_BUILD_DIR" >&2
    exit 1
  fi
done

work=$(mktemp -d /tmp/kcheck-fuzz-minimise-XXXXXX)
trap 'rm -rf "$work"' EXIT

# generated NAME: libFuzzer names what it writes by the SHA-1 of its bytes.
generated() { [[ $1 =~ ^[0-9a-f]{40}$ ]]; }

# coverage BINARY DIR...: "cov: N ft: M" of the inputs in the DIRs, read only
# (the empty first directory is the one libFuzzer would write to).
coverage() {
  local binary=$1 scratch
  shift
  scratch=$(mktemp -d "$work/coverage-XXXXXX")
  (ulimit -s 1024; ASAN_OPTIONS=detect_leaks=1 "$binary" -runs=0 -timeout=10 -rss_limit_mb=2048 "$scratch" "$@" 2>&1) |
    grep -o 'INITED cov: [0-9]* ft: [0-9]*' | tail -1 | sed 's/^INITED //' || true
  rm -rf "$scratch"
}

# seed_dirs SURFACE: the repository folders that seed SURFACE besides fuzz/corpus/SURFACE/.
seed_dirs() { awk -v surface="$1" '$1 == surface && NF == 2 {print $2}' fuzz/seed_dirs.txt; }

# summary DIR...: "FILES files, BYTES bytes".
summary() {
  echo "$(find "$@" -maxdepth 1 -type f | wc -l) files, $(find "$@" -maxdepth 1 -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}') bytes"
}

# pack DIR ARCHIVE: the files of DIR as a reproducible xz tar (sorted names,
# no owners, no times), so that the same inputs give the same bytes.
pack() {
  (cd "$1" && find . -maxdepth 1 -type f -printf '%P\n' | LC_ALL=C sort |
     tar --owner=0 --group=0 --numeric-owner --mtime=@0 --mode=a=r,u+w -cf - -T - | xz -9e -T1) >"$2"
}

echo "fuzz-minimise: $build${new_inputs:+, new inputs from $new_inputs}, work in $work"
mkdir -p fuzz/generated
for surface in "${surfaces[@]}"; do
  binary=$build/fuzz/fuzz_$surface
  corpus=fuzz/corpus/$surface
  archive=fuzz/generated/$surface.tar.xz
  before=$work/$surface/before        # the generated inputs as committed
  out=$work/$surface/out              # the hand-made files, then what the merge adds
  candidates=$work/$surface/candidates
  log=$work/$surface/merge.log
  mkdir -p "$before" "$out" "$candidates"
  [[ ! -f $archive ]] || tar -xJf "$archive" -C "$before"
  for file in "$corpus"/*; do
    [[ -f $file ]] || continue
    if generated "${file##*/}"; then cp -p "$file" "$before/"; else cp -p "$file" "$out/"; fi
  done
  cp -rp "$before"/. "$candidates/"
  if [[ -n $new_inputs && -d $new_inputs/$surface/new ]]; then cp -rp "$new_inputs/$surface/new"/. "$candidates/"; fi
  mapfile -t seeds < <(seed_dirs "$surface")
  before_files=$(summary "$out" "$before")
  before_coverage=$(coverage "$binary" "$out" "$before" "${seeds[@]}")
  # The seed folders' features count as covered too: their files join OUT
  # under names that are not SHA-1s, so none of them is kept as generated.
  if ((${#seeds[@]} > 0)); then
    seed_count=0
    while IFS= read -r -d '' file; do
      cp -p "$file" "$out/seed-folder-$((seed_count++))"
    done < <(find "${seeds[@]}" -type f -print0)
  fi

  # -merge=1 OUT CANDIDATES: OUT's own features count as covered; the candidates
  # are tried smallest first and written to OUT (by SHA-1) where they add one.
  # It runs each input in a child process, so one that crashes is skipped.
  status=0
  (ulimit -s 1024; ASAN_OPTIONS=detect_leaks=1 "$binary" -merge=1 -timeout=10 -rss_limit_mb=2048 \
     "$out" "$candidates" >"$log" 2>&1) || status=$?
  if [[ $status -ne 0 ]] || ! grep -q 'MERGE-OUTER: [0-9]* new files' "$log"; then
    echo "fuzz_$surface: merge failed (exit $status); $corpus and $archive left as they were:" >&2
    tail -20 "$log" >&2
    exit 1
  fi

  # What the merge added: generated names that are not a hand-made file's bytes.
  declare -A kept_hashes=()
  for file in "$corpus"/*; do
    [[ -f $file ]] || continue
    generated "${file##*/}" || kept_hashes[$(sha1sum <"$file" | cut -c1-40)]=1
  done
  mkdir -p "$work/$surface/kept"
  for file in "$out"/*; do
    name=${file##*/}
    if generated "$name" && [[ -z ${kept_hashes[$name]:-} ]]; then cp -p "$file" "$work/$surface/kept/"; fi
  done
  unset kept_hashes

  # The hand-made files stay; the generated ones go into the archive.
  for file in "$corpus"/*; do
    if generated "${file##*/}"; then rm -f "$file"; fi
  done
  pack "$work/$surface/kept" "$archive"
  after_coverage=$(coverage "$binary" "$corpus" "$work/$surface/kept" "${seeds[@]}")
  echo "fuzz_$surface: $before_files -> $(summary "$corpus") plain + $(summary "$work/$surface/kept") in" \
       "$archive ($(stat -c %s "$archive") bytes); coverage ${before_coverage:-?} -> ${after_coverage:-?}"
done
