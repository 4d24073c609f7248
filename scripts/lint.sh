#!/usr/bin/env bash
# The style and lint checks (issue #18), run by the test suite (ctest labels
# `lint`) and by hand:
#   scripts/lint.sh format          every tracked C++ file is as clang-format writes it (.clang-format);
#                                   fixture sources opt out (tests/**/fixtures/.clang-format)
#   scripts/lint.sh tidy BUILD_DIR  clang-tidy (.clang-tidy, warnings as errors) on the C++ sources and
#                                   headers of checker/ (the worker too), cli/, reference/ops/, bench/,
#                                   fuzz/ and tests/ that differ from $KCHECK_TIDY_BASE (default HEAD~1:
#                                   the change under test) or are changed in the working tree, where
#                                   BUILD_DIR's compile database can compile them (below)
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
    # kcheck's own C++; fixture sources (deliberately bad, compiled as test inputs) stay out.
    folders=('checker/*' 'cli/*' 'reference/ops/*' 'bench/*' 'fuzz/*' 'tests/*')
    mapfile -t changed < <({ git diff --name-only --diff-filter=d "$base" -- "${folders[@]}"
                             git ls-files --others --exclude-standard -- "${folders[@]}"; } |
                           grep -E '\.(cpp|h)$' | grep -v '/fixtures/' | sort -u || true)
    # clang-tidy needs a compile command. A .cpp is checked where BUILD_DIR's
    # compile database has it (the worker only in a build with Torch, fuzz/
    # only in a fuzz build). A header whose own .cpp is checked is checked
    # with it (HeaderFilterRegex in .clang-tidy shows its findings); any other
    # header is checked alone, with the command clang infers from a .cpp of
    # its folder, so only where its folder has one in the database.
    selected=$(python3 -c '
import json, os, sys
build_dir, changed = sys.argv[1], sys.argv[2:]
database = json.load(open(os.path.join(build_dir, "compile_commands.json")))
compiled = {os.path.realpath(os.path.join(e["directory"], e["file"])) for e in database}
folders = {os.path.dirname(path) for path in compiled}
checked = {os.path.realpath(f) for f in changed} & compiled
left_out = []
for f in changed:
    path = os.path.realpath(f)
    if path in checked or (f.endswith(".h") and os.path.dirname(path) in folders and path[:-2] + ".cpp" not in checked):
        print(f)
    elif not (f.endswith(".h") and path[:-2] + ".cpp" in checked):
        left_out.append(f)
if left_out:
    print(f"lint tidy: nothing in {build_dir}/compile_commands.json compiles these, not checked:", *left_out, file=sys.stderr)
' "$build_dir" "${changed[@]}")
    files=()
    [[ -z $selected ]] || mapfile -t files <<<"$selected"
    if ((${#files[@]} == 0)); then
      echo "lint tidy: no C++ file that $build_dir compiles changed since $base"
      exit 0
    fi
    echo "lint tidy: ${#files[@]} of ${#changed[@]} changed files checked since $base (the other headers with" \
         "their .cpp), $(nproc) at a time"
    # One clang-tidy per file, as many at once as there are cores; each file's
    # findings are printed whole, then the files that had some.
    printf '%s\0' "${files[@]}" |
      xargs -0 -P "$(nproc)" -I{} sh -c 'out=$(clang-tidy -p "$1" --quiet "$2" 2>/dev/null) || { printf "%s\nlint tidy: %s has findings (above)\n" "$out" "$2"; exit 1; }' sh "$build_dir" {}
    ;;
  *)
    echo "usage: scripts/lint.sh format | tidy BUILD_DIR" >&2
    exit 2
    ;;
esac
