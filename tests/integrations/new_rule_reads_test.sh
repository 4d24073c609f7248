#!/usr/bin/env bash
# Issue #31: a rule that needs an optional ELF table is added through
# scripts/new-rule.py alone (no other file touched: its --reads declares the
# table in the rule's RuleInfo), and collect_facts reads that table when the
# rule is selected and not when it is not.
# usage: new_rule_reads_test.sh <source root> <C++ compiler> <new_rule_probe> <a tree with an ELF module>
set -euo pipefail
root=$1
cxx=$2
probe=$3
tree=$4
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
(cd "$root" && git ls-files -z checker scripts rules/families.toml cmake | tar --null -T - -cf -) | tar -xf - -C "$copy"
mkdir -p "$copy/tests/fixtures/trees"
fingerprint() { (cd "$copy" && find . -type f -exec sha256sum {} + | sort -k2); }
before=$(fingerprint)

"$copy/scripts/new-rule.py" --root "$copy" KE099 reads_rodata "A throwaway rule that reads .rodata" \
  --severity note --reads read_only_data >/dev/null
# What the scaffold wrote: the rule's file, its line in the family's table,
# its two fixtures; no other file is added or edited.
changed=$( { diff <(echo "$before") <(fingerprint) || true; } | sed -n 's/^[<>] [0-9a-f]*  //p' | sort -u)
expected=$(printf '%s\n' ./checker/elf/rules/elf_rule_table.h ./checker/elf/rules/ke099_reads_rodata.cpp \
  ./tests/fixtures/trees/ke099_reads_rodata/expected.toml \
  ./tests/fixtures/trees/ke099_reads_rodata_near_miss/expected.toml | sort)
[[ $changed == "$expected" ]] || { echo "FAIL: the scaffold wrote other files:"; echo "$changed"; exit 1; }
grep -qF 'OptionalFact::read_only_data' "$copy/checker/elf/rules/ke099_reads_rodata.cpp" ||
  { echo "FAIL: the rule does not declare what it reads"; exit 1; }

# The copy's registry, generated from its own family table as the build generates it, with the new rule.
cmake -DTOML="$copy/rules/families.toml" -DOUT_DIR="$copy/generated" -P "$copy/cmake/rule_families.cmake"
cat >"$copy/plugin.cpp" <<'CPP'
#include <span>

#include "checker/core/rule_registry.h"
#include "checker/core/rule_table.h"
#include "all_rule_tables.inc"

extern "C" void kcheck_probe_registry(kcheck::RuleRegistry* registry) {
  for (const std::span<const kcheck::RuleFactory> family : kcheck::kAllRuleTables) kcheck::add_rules(*registry, family);
}
CPP
# Its own family tables, not the probe's: inline variables bind inside the
# plugin (-Bsymbolic, no STB_GNU_UNIQUE), everything else to the probe's.
"$cxx" -std=c++20 -O1 -fPIC -shared -fno-gnu-unique -Wl,-Bsymbolic -I"$copy" -I"$copy/generated" "$copy/plugin.cpp" \
  "$copy/checker/elf/rules/ke099_reads_rodata.cpp" -o "$copy/plugin.so"

selected=$("$probe" "$copy/plugin.so" "$tree" KE099)
echo "$selected"
read -r _ in_copy in_build < <(head -1 <<<"$selected")
[[ $in_copy == $((in_build + 1)) ]] || { echo "FAIL: the copy's registry does not hold one rule more"; exit 1; }
grep -q 'read_only_data=1' <<<"$selected" || { echo "FAIL: .rodata not read with KE099 selected"; exit 1; }
grep -q 'read_only_data=0' <<<"$selected" && { echo "FAIL: a module's .rodata not read with KE099 selected"; exit 1; }
other=$("$probe" "$copy/plugin.so" "$tree" KE001)
echo "$other"
grep -q 'read_only_data=0' <<<"$other" || { echo "FAIL: no module listed without KE099"; exit 1; }
grep -q 'read_only_data=1' <<<"$other" && { echo "FAIL: .rodata read with only KE001 selected"; exit 1; }
echo "new rule: its --reads is the only declaration, and .rodata is read exactly when it is selected"
