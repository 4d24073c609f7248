#!/usr/bin/env bash
# The pre-commit hook (.pre-commit-hooks.yaml, id kcheck-system) as a kernel
# author runs it: `pre-commit try-repo` of this checkout in a git repository
# holding a fixture kernel. A kernel with a known violation (KP002) fails the
# commit with the finding shown; a clean one passes.
#
#   pre_commit_hook_test.sh SOURCE_DIR KCHECK_DIR FIXTURE_TREES
set -euo pipefail
source_dir=$1 kcheck_dir=$2 fixtures=$3
pre_commit=$source_dir/.venv/bin/pre-commit
work=$(mktemp -d /tmp/kcheck-pre-commit-XXXXXX)
trap 'rm -rf "$work"' EXIT
export PATH="$kcheck_dir:$PATH" PRE_COMMIT_HOME="$work/cache"

try_hook() {  # FIXTURE -> exit status of the hook, output in $work/FIXTURE.out
  local repo=$work/$1
  cp -r "$fixtures/$1" "$repo"
  git -C "$repo" init -q
  git -C "$repo" add -A
  git -C "$repo" -c user.email=test@kcheck -c user.name=test commit -qm fixture
  local status=0
  (cd "$repo" && "$pre_commit" try-repo "$source_dir" kcheck-system --all-files) >"$work/$1.out" 2>&1 || status=$?
  return $status
}

status=0
try_hook kp002_numpy_import || status=$?
[[ $status -eq 1 ]] || { cat "$work/kp002_numpy_import.out"; echo "expected the hook to fail, got $status"; exit 1; }
grep -q 'KP002' "$work/kp002_numpy_import.out" || { cat "$work/kp002_numpy_import.out"; echo "no KP002 shown"; exit 1; }
try_hook clean_cpu_variants_from_template || { cat "$work/clean_cpu_variants_from_template.out"; echo "a clean kernel failed the hook"; exit 1; }
grep -q 'Passed' "$work/clean_cpu_variants_from_template.out"
echo "pre-commit hook: fails on KP002, passes a clean kernel"
