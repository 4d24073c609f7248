#!/usr/bin/env bash
# The shell step of action.yml, runnable anywhere (tests/integrations runs it):
# installs kcheck unless KCHECK_INSTALL=none (then the kcheck on PATH is used),
# audits KCHECK_PATH with KCHECK_ARGS as GitHub annotations, writes the SARIF
# report (paths relative to the repository, --sarif-root) and exits as the gate.
# With KCHECK_BUILD=true it first builds the kernel (`kcheck build`, with
# KCHECK_BUILD_ARGS, e.g. --backends cpu on a runner without a GPU toolkit)
# against the Torch of the active Python; without a build, a kernel source
# repository (build.toml, no build/) gets the checks that need no build.
#   KCHECK_PATH (default .), KCHECK_ARGS, KCHECK_VERSION (pip version; empty:
#   KCHECK_SOURCE, this checkout), KCHECK_INSTALL=none, KCHECK_BUILD,
#   KCHECK_BUILD_ARGS, GITHUB_OUTPUT (optional),
#   KCHECK_RULES_URL, or KCHECK_RULES_SERVER/REPOSITORY/REF (optional: the
#   published docs/rules.md, SARIF helpUri)
set -euo pipefail
path=${KCHECK_PATH:-.}
read -r -a args <<<"${KCHECK_ARGS:-}"
if [[ "${KCHECK_INSTALL:-pip}" != none ]]; then
  if [[ -n "${KCHECK_VERSION:-}" ]]; then python -m pip install --quiet "kcheck==$KCHECK_VERSION"
  else python -m pip install --quiet "${KCHECK_SOURCE:?KCHECK_SOURCE or KCHECK_VERSION}"; fi
fi
kcheck --version
out=${RUNNER_TEMP:-$(mktemp -d)}
status=0
if [[ "${KCHECK_BUILD:-false}" == true ]]; then
  read -r -a build_args <<<"${KCHECK_BUILD_ARGS:-}"
  # The build audits its variants itself; the step below audits them again, for the report files.
  kcheck build "$path" "${build_args[@]}" --quiet || status=$?
  [[ $status -le 1 ]] || exit "$status"  # the kernel could not be built: kcheck said why
  status=0
fi
kcheck check "$path" "${args[@]}" --format json -o "$out/kcheck.json" || status=$?
[[ $status -le 1 ]] || exit "$status"  # kcheck could not do its job: no report to show
# One audit, rendered twice: annotations on the pull request, SARIF for code scanning.
kcheck report "$out/kcheck.json" --format github || true
sarif_args=(--sarif-root "$PWD")
# The rules' docs of the kcheck this action runs, when GitHub says which (helpUri):
# KCHECK_RULES_URL, else the page of KCHECK_RULES_REPOSITORY at KCHECK_RULES_REF when both are set.
rules_url=${KCHECK_RULES_URL:-}
if [[ -z "$rules_url" && -n "${KCHECK_RULES_REPOSITORY:-}" && -n "${KCHECK_RULES_REF:-}" ]]; then
  rules_url="${KCHECK_RULES_SERVER:-https://github.com}/$KCHECK_RULES_REPOSITORY/blob/$KCHECK_RULES_REF/docs/rules.md"
fi
[[ -z "$rules_url" ]] || sarif_args+=(--rules-url "$rules_url")
kcheck report "$out/kcheck.json" --format sarif "${sarif_args[@]}" -o "$out/kcheck.sarif" || true
[[ -z "${GITHUB_OUTPUT:-}" ]] || echo "sarif=$out/kcheck.sarif" >>"$GITHUB_OUTPUT"
exit "$status"
