#!/usr/bin/env bash
# The GitHub Action's shell step (scripts/action-run.sh, what action.yml runs)
# with the kcheck on PATH: on a kernel with a known violation it prints the
# finding as a workflow annotation, writes a SARIF report that names it with a
# path relative to the repository and links the rule's docs (helpUri),
# reports it as a step output, and fails.
#
#   action_run_test.sh SOURCE_DIR KCHECK_DIR FIXTURE_TREES
set -euo pipefail
source_dir=$1 kcheck_dir=$2 fixtures=$3
work=$(mktemp -d /tmp/kcheck-action-XXXXXX)
trap 'rm -rf "$work"' EXIT
cp -r "$fixtures/kp002_numpy_import" "$work/repo"
mkdir "$work/runner"
status=0
(cd "$work/repo" && PATH="$kcheck_dir:$PATH" KCHECK_INSTALL=none KCHECK_PATH=. RUNNER_TEMP="$work/runner" \
   GITHUB_OUTPUT="$work/output" KCHECK_RULES_SERVER=https://example.org KCHECK_RULES_REPOSITORY=kcheck KCHECK_RULES_REF=v1 \
   "$source_dir/scripts/action-run.sh") >"$work/log" 2>&1 || status=$?
[[ $status -eq 1 ]] || { cat "$work/log"; echo "expected exit 1, got $status"; exit 1; }
grep -qE '^::error .*title=KP002' "$work/log" || { cat "$work/log"; echo "no KP002 annotation"; exit 1; }
grep -qx "sarif=$work/runner/kcheck.sarif" "$work/output"
grep -q '"ruleId": "KP002"' "$work/runner/kcheck.sarif"
grep -q '"uri": "build/' "$work/runner/kcheck.sarif" || { echo "SARIF paths not relative to the repository"; exit 1; }
grep -q '"helpUri": "https://example.org/kcheck/blob/v1/docs/rules.md#kp002"' "$work/runner/kcheck.sarif" ||
  { echo "no helpUri to the rule's section"; exit 1; }
echo "action step: annotation, SARIF, exit 1"

# A kernel's source repository (a copy of reference/kernels/relu, no build/):
# without a build the step runs the checks that need no build and passes;
# with KCHECK_BUILD=true it builds the CPU variant against the venv's Torch
# first and audits it (a local build: the required variants of other Torch
# releases are a note), and passes.
cp -r "$source_dir/reference/kernels/relu" "$work/source"
run_step() {  # NAME ENV... -> exit status, log in $work/NAME.log
  local name=$1 status=0
  shift
  (cd "$work/source" && env PATH="$kcheck_dir:$PATH" KCHECK_INSTALL=none KCHECK_PATH=. RUNNER_TEMP="$work/runner" \
     VIRTUAL_ENV="$source_dir/.venv" "$@" "$source_dir/scripts/action-run.sh") >"$work/$name.log" 2>&1 || status=$?
  return $status
}
run_step source || { cat "$work/source.log"; echo "the source checks failed"; exit 1; }
grep -q '"scope": "source"' "$work/runner/kcheck.json" || { echo "not a source audit"; exit 1; }
run_step built KCHECK_BUILD=true "KCHECK_BUILD_ARGS=--backends cpu" KCHECK_ARGS=--local-build ||
  { cat "$work/built.log"; echo "build then audit failed"; exit 1; }
ls "$work/source/build" | grep -q -- '-cpu-' || { cat "$work/built.log"; echo "no CPU variant built"; exit 1; }
grep -q '"scope": "tree"' "$work/runner/kcheck.json" || { echo "the build was not audited"; exit 1; }
echo "action step on a source repository: source checks; build then audit"
