#!/usr/bin/env bash
# The Kubernetes Indexed Job of docs/scan.md (docs/kubernetes/kcheck-scan-job.yaml)
# validates against the Kubernetes schema (kubernetes-validate --strict: no
# unknown field), and the same manifest with a misspelt field does not, so
# the check can fail. It also runs the kcheck scan --shard command it documents.
#
#   kubernetes_manifest_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
validate=$source_dir/.venv/bin/kubernetes-validate
manifest=$source_dir/docs/kubernetes/kcheck-scan-job.yaml
[[ -x $validate ]] || { echo "$validate not found: scripts/setup.sh installs requirements-dev.txt"; exit 1; }
"$validate" --strict --quiet "$manifest" || { echo "the manifest does not validate"; exit 1; }
grep -q 'kcheck scan /hub-mirror --shard ${JOB_COMPLETION_INDEX}/8' "$manifest" || { echo "the manifest does not run the sharded scan"; exit 1; }
work=$(mktemp -d /tmp/kcheck-kubernetes-XXXXXX)
trap 'rm -rf "$work"' EXIT
sed 's/completionMode: Indexed/completionMod: Indexed/' "$manifest" >"$work/misspelt.yaml"
if "$validate" --strict --quiet "$work/misspelt.yaml" >"$work/out" 2>&1; then
  echo "a misspelt field passed the validation"; exit 1
fi
grep -q "completionMod" "$work/out" || { cat "$work/out"; echo "the validator did not name the misspelt field"; exit 1; }
echo "docs/kubernetes/kcheck-scan-job.yaml validates; a misspelt field is refused"
