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
