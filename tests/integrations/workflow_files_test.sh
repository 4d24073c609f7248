#!/usr/bin/env bash
# The GitHub files kcheck ships, which no run here executes: action.yml and
# .github/workflows/*.yml valid against GitHub's own schemas (SchemaStore's,
# as check-jsonschema vendors them: a mistyped key or an unquoted `: ` in a
# description fails), and every script they run present and executable.
#
#   workflow_files_test.sh SOURCE_DIR VENV_BIN
set -euo pipefail
source_dir=$1 venv_bin=$2
cd "$source_dir"
"$venv_bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
"$venv_bin/check-jsonschema" --builtin-schema vendor.github-workflows .github/workflows/*.yml
status=0
for script in $(grep -ohE 'scripts/[A-Za-z0-9_-]+\.sh' action.yml .github/workflows/*.yml | sort -u); do
  [[ -x $script ]] || { echo "$script is run by a workflow or the action, and is not an executable file"; status=1; }
done
exit $status
