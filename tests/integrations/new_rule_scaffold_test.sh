#!/usr/bin/env bash
# Issue #18: scripts/new-rule.py creates a throwaway rule in a copy of the
# checker: the rule file compiles and defines the factory its family's table
# names, the registry (all_rules.cpp) compiles with the new line, the layers
# still point down, both fixtures are written; and it refuses what it must.
# usage: new_rule_scaffold_test.sh <source root> <C++ compiler>
set -euo pipefail
root=$1
cxx=$2
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
(cd "$root" && git ls-files -z checker scripts rules/families.toml cmake | tar --null -T - -cf -) | tar -xf - -C "$copy"
mkdir -p "$copy/tests/fixtures/trees" "$copy/tests/fixtures/config"
cp "$root/.clang-format" "$copy/"

"$copy/scripts/new-rule.py" --root "$copy" KE099 throwaway_check "A throwaway rule for the scaffold test" --severity warning
rule=$copy/checker/elf/rules/ke099_throwaway_check.cpp
test -f "$rule"
grep -q 'RULE(ke099_throwaway_check)$' "$copy/checker/elf/rules/elf_rule_table.h" \
  || { echo "FAIL: the table's last line is not the new rule"; exit 1; }
tr -s ' \n' ' ' <"$rule" | grep -qF '"KE099", "A throwaway rule for the scaffold test", Severity::warning' \
  || { echo "FAIL: the rule's RuleInfo does not hold its code, title and severity"; exit 1; }
grep -qxF 'expect = ["KE099/warning@TODO-file"]' "$copy/tests/fixtures/trees/ke099_throwaway_check/expected.toml"
grep -qxF 'expect = []' "$copy/tests/fixtures/trees/ke099_throwaway_check_near_miss/expected.toml"

"$cxx" -std=c++20 -I"$copy" -c "$rule" -o "$copy/rule.o"
defined=$(nm -C --defined-only "$copy/rule.o")
grep -qF 'kcheck::make_ke099_throwaway_check()' <<<"$defined" \
  || { echo "FAIL: the rule file does not define make_ke099_throwaway_check"; exit 1; }
cmake -DTOML="$copy/rules/families.toml" -DOUT_DIR="$copy/generated" -P "$copy/cmake/rule_families.cmake"
"$cxx" -std=c++20 -I"$copy" -I"$copy/generated" -fsyntax-only "$copy/checker/audit/all_rules.cpp"
"$copy/scripts/check-layers.py" "$copy"
# What it writes is as clang-format writes it (the lint check would fail otherwise).
clang-format --dry-run --Werror "$rule" "$copy/checker/elf/rules/elf_rule_table.h"

# A config rule gets source-tree fixtures with a build.toml.
"$copy/scripts/new-rule.py" --root "$copy" KC099 throwaway_config "A throwaway config rule" >/dev/null
test -f "$copy/tests/fixtures/config/kc099_throwaway_config/build.toml"
"$cxx" -std=c++20 -I"$copy" -fsyntax-only "$copy/checker/config/rules/kc099_throwaway_config.cpp"

refused() {  # <text the refusal holds> <arguments...>
  local expected=$1; shift
  set +e
  out=$("$copy/scripts/new-rule.py" --root "$copy" "$@" 2>&1)
  status=$?
  set -e
  [[ $status == 2 ]] || { echo "FAIL: '$*' exited $status, not 2: $out"; exit 1; }
  [[ $out == *"$expected"* ]] || { echo "FAIL: '$*' did not say '$expected': $out"; exit 1; }
}
refused "KE099 is taken" KE099 again "Again"
refused "KD rules judge" KD099 dynamic "Dynamic"
refused "no optional fact 'rodata'" KE097 reads_wrong "Reads" --reads rodata
refused "is not a rule code" KE15 short "Short"
refused "no family has the prefix KZ" KZ001 unknown "Unknown"
refused "is not a snake_case name" KE098 Bad-Name "Bad"
echo "scaffold: rule, registration line and fixtures written and compiled; refusals hold"
