#!/usr/bin/env bash
# Issue #18 (layers of #31): checker/'s includes and its libraries' links point only downward
# (scripts/check-layers.py), and the check fails on an upward include (core
# including an analyser header, the static audit including the harness that
# runs kernels), an upward link in CMakeLists.txt, and an arrow from the
# product into reference/ other than reference/ops/.
set -euo pipefail
root=$1
"$root/scripts/check-layers.py" "$root"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/rules"
cp "$root/rules/families.toml" "$scratch/rules/"  # which folders are analysers
plant() {  # <file under checker/> <include>: a tree of that one file
  rm -rf "$scratch/checker" "$scratch/CMakeLists.txt"
  mkdir -p "$scratch/checker/$(dirname "$1")"
  printf '#pragma once\n#include "%s"\n' "$2" > "$scratch/checker/$1"
}
refused() {  # <what was planted> <text the report must hold>
  if "$root/scripts/check-layers.py" "$scratch" > "$scratch/out"; then
    echo "FAIL: $1 was accepted"; exit 1
  fi
  grep -qF "$2" "$scratch/out" || { echo "FAIL: the report does not say '$2':"; cat "$scratch/out"; exit 1; }
}
accepted() {  # <what was planted>
  "$root/scripts/check-layers.py" "$scratch" > "$scratch/out" || { echo "FAIL: $1 was refused:"; cat "$scratch/out"; exit 1; }
}
expect_refused() {  # <file under checker/> <include> <text the report must hold>
  plant "$1" "$2"
  refused "checker/$1 including $2" "$3"
}
expect_link_refused() {  # <a CMakeLists.txt line> <text the report must hold>
  plant core/finding.h checker/core/severity.h
  printf 'add_library(kcheck_core STATIC)\n%s\n' "$1" > "$scratch/CMakeLists.txt"
  refused "the link '$1'" "$2"
}
expect_refused core/finding.h checker/kinds/elf_facts.h "checker/core/finding.h:2: core includes checker/kinds/elf_facts.h (kinds)"
expect_refused audit/judge.cpp checker/harness/harness.h "checker/audit/judge.cpp:2: audit includes checker/harness/harness.h (top)"
expect_refused kinds/elf_facts.h checker/facts/tree_facts.h "kinds includes checker/facts/tree_facts.h (facts)"
expect_refused report/text_format.cpp checker/facts/tree_facts.h "report includes checker/facts/tree_facts.h"
expect_refused scan/scan.cpp cli/main.cpp "checker/scan/scan.cpp:2: top includes cli/main.cpp (cli)"
expect_refused newfolder/thing.h checker/core/finding.h "checker/newfolder/thing.h: in no layer"
# core holds the model and runs no process; support needs nothing of kcheck;
# only the top layer (harness, builder) runs processes.
expect_refused core/policy.cpp checker/process/bounded_process.h "core includes checker/process/bounded_process.h (process)"
expect_refused support/work_pool.h checker/core/finding.h "support includes checker/core/finding.h (core)"
expect_refused elf/elf_reader.cpp checker/process/bounded_process.h "analysers includes checker/process/bounded_process.h (process)"
expect_refused process/bounded_process.h checker/facts/tree_facts.h "process includes checker/facts/tree_facts.h (facts)"
plant core/policy.cpp checker/support/checked_toml.h
accepted "checker/core/policy.cpp including checker/support/checked_toml.h"
plant builder/build_tool.h checker/process/bounded_process.h
accepted "checker/builder/build_tool.h including checker/process/bounded_process.h"
# The product may embed reference/ops/ only, never the reference kernels.
expect_refused harness/harness.cpp reference/kernels/relu/torch-ext/torch_binding.h \
  "checker/harness/harness.cpp:2: the product depends on reference/kernels;"
plant harness/harness.cpp reference/ops/baseline_forms.h
accepted "checker/harness/harness.cpp including reference/ops/baseline_forms.h"

# The libraries of checker/'s folders link down, as their files include.
expect_link_refused "target_link_libraries(kcheck_audit PUBLIC kcheck_layout kcheck_harness)" \
  "CMakeLists.txt:2: audit library kcheck_audit links kcheck_harness (top), a layer above it"
expect_link_refused "kcheck_link(elf kcheck_facts
  kcheck_audit)  # over two lines" "CMakeLists.txt:2: analysers library kcheck_elf links kcheck_audit (audit)"
expect_link_refused "target_link_libraries(kcheck_report PUBLIC kcheck_facts)" \
  "report library kcheck_report links kcheck_facts (facts)"
plant newfolder/thing.cpp checker/core/finding.h
printf 'target_link_libraries(kcheck_newfolder PUBLIC kcheck_core)\n' > "$scratch/CMakeLists.txt"
refused "a library of a folder in no layer" "CMakeLists.txt:1: library kcheck_newfolder is in no layer"
expect_link_refused "target_sources(kcheck_core PRIVATE reference/kernels/relu/relu.cpp)" \
  "CMakeLists.txt:2: the product depends on reference/kernels;"
plant core/finding.h checker/core/severity.h
printf 'target_link_libraries(kcheck_harness PUBLIC kcheck_audit kcheck_report)\ntarget_link_libraries(kcheck_audit PUBLIC kcheck_elf)\n' > "$scratch/CMakeLists.txt"
accepted "links down (harness to audit and report, audit to an analyser)"
echo "layer check: accepts the tree, refuses each upward include and link and each arrow into reference/kernels"
