#!/usr/bin/env bash
# The style and lint checks (issue #18), run by the test suite (ctest labels
# `lint`) and by hand:
#   scripts/lint.sh format          every tracked C++ file is as clang-format writes it (.clang-format);
#                                   fixture sources opt out (tests/**/fixtures/.clang-format)
#   scripts/lint.sh tidy BUILD_DIR  clang-tidy (.clang-tidy, warnings as errors) on the C++ files of
#                                   checker/ and cli/ that differ from $KCHECK_TIDY_BASE (default HEAD~1:
#                                   the change under test) or are changed in the working tree
# Exit 77 (CTest: "Skipped") when there is nothing to compare with: a clone
# without the base commit. Formatting the tree: clang-format -i FILE...
set -euo pipefail
cd "$(dirname "$0")/.."

case ${1:-} in
  format)
    mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.c' '*.cu' '*.hip' ':!:fuzz/corpus/**')
    clang-format --dry-run --Werror "${files[@]}"
    echo "lint format: ${#files[@]} files as clang-format writes them"
    ;;
  tidy)
    build_dir=${2:?usage: scripts/lint.sh tidy BUILD_DIR}
    base=${KCHECK_TIDY_BASE:-HEAD~1}
    if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null; then
      echo "lint tidy: no commit '$base' to compare with (a shallow clone?): nothing checked"
      exit 77
    fi
    mapfile -t files < <({ git diff --name-only --diff-filter=d "$base" -- 'checker/*.cpp' 'cli/*.cpp'
                           git ls-files --others --exclude-standard 'checker/*.cpp' 'cli/*.cpp'; } | sort -u |
                         grep -v -e '/worker/' -e '^cli/kcheck_worker.cpp$' || true)
    # The worker builds against Torch's headers (not in every build's compile database).
    if ((${#files[@]} == 0)); then
      echo "lint tidy: no C++ file of checker/ or cli/ changed since $base"
      exit 0
    fi
    echo "lint tidy: ${#files[@]} files changed since $base"
    status=0
    for file in "${files[@]}"; do
      clang-tidy -p "$build_dir" --quiet "$file" 2>/dev/null || { echo "lint tidy: $file has findings (above)"; status=1; }
    done
    exit $status
    ;;
  *)
    echo "usage: scripts/lint.sh format | tidy BUILD_DIR" >&2
    exit 2
    ;;
esac
