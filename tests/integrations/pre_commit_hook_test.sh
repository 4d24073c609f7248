#!/usr/bin/env bash
# The pre-commit hooks (.pre-commit-hooks.yaml, ids kcheck-system and
# kcheck-build-system) as a kernel author runs them: `pre-commit try-repo` of
# this checkout in the git repository of a kernel's *sources* (a copy of
# reference/kernels/relu) whose build/ is git-ignored.
#   - kcheck (sources): passes the clean kernel; a literal TORCH_LIBRARY(relu,
#     ...) planted in its binding fails the commit with KO001 shown.
#   - kcheck-build: without build/ it repeats the source checks (passes);
#     with a build/ holding a variant that imports numpy (a fixture tree's,
#     git-ignored, so never among the commit's files) it fails with KP002.
#
#   pre_commit_hook_test.sh SOURCE_DIR KCHECK_DIR FIXTURE_TREES
set -euo pipefail
source_dir=$1 kcheck_dir=$2 fixtures=$3
pre_commit=$source_dir/.venv/bin/pre-commit
work=$(mktemp -d /tmp/kcheck-pre-commit-XXXXXX)
trap 'rm -rf "$work"' EXIT
export PATH="$kcheck_dir:$PATH" PRE_COMMIT_HOME="$work/cache"

repo=$work/relu
cp -r "$source_dir/reference/kernels/relu" "$repo"
printf 'build/\n' >"$repo/.gitignore"
git -C "$repo" init -q
commit() { git -C "$repo" add -A && git -C "$repo" -c user.email=test@kcheck -c user.name=test commit -qm "$1"; }
commit kernel

run_hook() {  # HOOK NAME -> exit status, output in $work/NAME.out
  local status=0
  (cd "$repo" && "$pre_commit" try-repo "$source_dir" "$1" --all-files) >"$work/$2.out" 2>&1 || status=$?
  return $status
}
expect() {  # STATUS NAME PATTERN WHY
  local status=$1 name=$2 pattern=$3
  grep -q -- "$pattern" "$work/$name.out" || { cat "$work/$name.out"; echo "$name: no '$pattern' ($4)"; exit 1; }
  [[ $status -eq ${5:-0} ]] || { cat "$work/$name.out"; echo "$name: exit $status ($4)"; exit 1; }
}

status=0; run_hook kcheck-system clean || status=$?
expect $status clean 'Passed' "a clean kernel's sources pass"
status=0; run_hook kcheck-build-system clean-unbuilt || status=$?
expect $status clean-unbuilt 'Passed' "without build/ the build hook checks the sources"

printf '\nTORCH_LIBRARY(relu, extra) {}\n' >>"$repo/torch-ext/torch_binding.cpp"
status=0; run_hook kcheck-system literal || status=$?
expect $status literal 'KO001' "a literal namespace fails the commit" 1
git -C "$repo" checkout -q -- torch-ext/torch_binding.cpp

cp -r "$fixtures/kp002_numpy_import/build" "$repo/build"
[[ -z $(git -C "$repo" status --porcelain) ]] || { git -C "$repo" status; echo "build/ is not ignored"; exit 1; }
status=0; run_hook kcheck-build-system built || status=$?
expect $status built 'KP002' "the build hook audits the git-ignored build/" 1
status=0; run_hook kcheck-system sources-beside-build || status=$?
expect $status sources-beside-build 'Passed' "the source hook checks the sources, not build/"
echo "pre-commit hooks: sources pass and a literal namespace fails (KO001); build/ audited where it exists (KP002)"
