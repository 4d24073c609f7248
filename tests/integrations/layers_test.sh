#!/usr/bin/env bash
# Issue #18: checker/'s includes point only downward (scripts/check-layers.py),
# and the check fails on an upward include: core including an analyser
# header, the static audit including the harness that runs kernels.
set -euo pipefail
root=$1
"$root/scripts/check-layers.py" "$root"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
expect_refused() {  # <file under checker/> <include> <text the report must hold>
  rm -rf "$scratch/checker"
  mkdir -p "$scratch/checker/$(dirname "$1")"
  printf '#pragma once\n#include "%s"\n' "$2" > "$scratch/checker/$1"
  if "$root/scripts/check-layers.py" "$scratch" > "$scratch/out"; then
    echo "FAIL: checker/$1 including $2 was accepted"; exit 1
  fi
  grep -qF "$3" "$scratch/out" || { echo "FAIL: the report does not say '$3':"; cat "$scratch/out"; exit 1; }
}
expect_refused core/finding.h checker/elf/elf_facts.h "checker/core/finding.h:2: core includes checker/elf/elf_facts.h (kinds)"
expect_refused audit/judge.cpp checker/harness/harness.h "checker/audit/judge.cpp:2: audit includes checker/harness/harness.h (top)"
expect_refused elf/elf_facts.h checker/facts/tree_facts.h "kinds includes checker/facts/tree_facts.h (facts)"
expect_refused report/text_format.cpp checker/facts/tree_facts.h "report includes checker/facts/tree_facts.h"
expect_refused scan/scan.cpp cli/main.cpp "checker/scan/scan.cpp:2: top includes cli/main.cpp (cli)"
expect_refused newfolder/thing.h checker/core/finding.h "checker/newfolder/thing.h: in no layer"
echo "layer check: accepts the tree, refuses each upward include"
