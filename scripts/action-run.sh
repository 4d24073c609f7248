#!/usr/bin/env bash
# The shell step of action.yml, runnable anywhere (tests/integrations runs it):
# installs kcheck, audits KCHECK_PATH with KCHECK_ARGS as GitHub annotations,
# writes the SARIF report (paths relative to the repository, --sarif-root) and
# exits as the gate. With KCHECK_BUILD=true it first builds the kernel
# (`kcheck build`, with KCHECK_BUILD_ARGS, e.g. --backends cpu on a runner
# without a GPU toolkit) against the Torch of the active Python; without a
# build, a kernel source repository (build.toml, no build/) gets the checks
# that need no build.
#   KCHECK_INSTALL how kcheck is installed:
#     release (default) the manylinux wheel of a kcheck release: from
#       KCHECK_WHEELS (a directory or a page of wheels; default: the release
#       page of KCHECK_RULES_REPOSITORY at KCHECK_RULES_REF, this action's own
#       tag), KCHECK_VERSION pins its version; pip --no-index, so no other
#       package of that name is ever taken
#     source  built from KCHECK_SOURCE (this action's checkout), after its
#       Debian/Ubuntu packages (scripts/setup.sh --wheel-deps; sudo)
#     none    the kcheck on PATH
#   KCHECK_PATH (default .), KCHECK_ARGS, KCHECK_BUILD, KCHECK_BUILD_ARGS,
#   GITHUB_OUTPUT (optional), KCHECK_RULES_URL, or
#   KCHECK_RULES_SERVER/REPOSITORY/REF (optional: the published docs/rules.md,
#   SARIF helpUri)
set -euo pipefail
path=${KCHECK_PATH:-.}
read -r -a args <<<"${KCHECK_ARGS:-}"
server=${KCHECK_RULES_SERVER:-https://github.com}
case ${KCHECK_INSTALL:-release} in
  release)
    wheels=${KCHECK_WHEELS:-}
    if [[ -z $wheels ]]; then
      if [[ -z ${KCHECK_RULES_REPOSITORY:-} || -z ${KCHECK_RULES_REF:-} ]]; then
        echo "kcheck: no release to install from (an action used as \`uses: ./\` has none): set install: source" >&2
        exit 2
      fi
      wheels=$server/$KCHECK_RULES_REPOSITORY/releases/expanded_assets/$KCHECK_RULES_REF
    fi
    python -m pip install --quiet --no-index --only-binary :all: --find-links "$wheels" \
      "kcheck${KCHECK_VERSION:+==$KCHECK_VERSION}" ||
      { echo "kcheck: no kcheck wheel for this runner at $wheels" >&2; exit 2; }
    ;;
  source)
    source=${KCHECK_SOURCE:?KCHECK_SOURCE: the checkout to build}
    "$source/scripts/setup.sh" --wheel-deps
    python -m pip install --quiet "$source"
    ;;
  none) ;;
  *) echo "kcheck: install must be release, source or none, not '$KCHECK_INSTALL'" >&2; exit 2 ;;
esac
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
  rules_url="$server/$KCHECK_RULES_REPOSITORY/blob/$KCHECK_RULES_REF/docs/rules.md"
fi
[[ -z "$rules_url" ]] || sarif_args+=(--rules-url "$rules_url")
kcheck report "$out/kcheck.json" --format sarif "${sarif_args[@]}" -o "$out/kcheck.sarif" || true
[[ -z "${GITHUB_OUTPUT:-}" ]] || echo "sarif=$out/kcheck.sarif" >>"$GITHUB_OUTPUT"
exit "$status"
