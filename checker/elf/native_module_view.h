#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/core/rule.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {

// One native module of the audit as a KE rule sees it: its facts, its
// variant (name parsed or not) and where findings about it go.
struct NativeModuleView {
  const TreeFacts& tree;
  const VariantFacts& variant;
  const NativeModuleFacts& module;

  Place place(std::string symbol = {}) const;
  std::string file() const { return variant.report_path(module.relative_path); }
  // "_relu_cuda_1a2b3c4.abi3.so" for "sub/_relu_cuda_1a2b3c4.abi3.so".
  std::string_view file_name() const;
  // The Python module name the file defines: its name up to the first '.'.
  std::string_view python_module_name() const;
  // The parsed variant name, absent when auditing a lone module or when the
  // directory name does not parse.
  const VariantName* variant_name() const { return variant.name ? &*variant.name : nullptr; }
  bool variant_is(VariantKind kind) const { return variant.name && variant.name->kind == kind; }
  // A usable ELF (read without error), else null.
  const ElfFacts* elf() const { return module.elf && module.elf->error.empty() ? &*module.elf : nullptr; }
  const MachOFacts* macho() const { return module.macho && module.macho->error.empty() ? &*module.macho : nullptr; }
  // A program (ET_EXEC, or a PIE with PT_INTERP) rather than a library: the
  // rules about Python extension modules (KE005, KE008, KE009) do not apply.
  bool is_program() const { return elf() && (elf()->elf_type == 2 || elf()->program_interpreter); }
};

// Calls visit(NativeModuleView) for every native module of every variant.
template <typename Visit>
void for_each_native_module(const TreeFacts& tree, Visit&& visit) {
  for (const VariantFacts& variant : tree.variants) {
    for (const NativeModuleFacts& module : variant.native_modules) visit(NativeModuleView{tree, variant, module});
  }
}

// Calls visit(view, elf) for every native module that is a readable ELF file.
template <typename Visit>
void for_each_elf_module(const TreeFacts& tree, Visit&& visit) {
  for_each_native_module(tree, [&](const NativeModuleView& view) {
    if (const ElfFacts* elf = view.elf()) visit(view, *elf);
  });
}

// Imported symbol names of either format (Mach-O names without the leading '_').
std::vector<std::string_view> imported_symbol_names(const NativeModuleView& view);

// "a, b, c and 4 more": a list a message can show.
std::string join_first(const std::vector<std::string>& items, std::size_t shown);

// libstdc++.so.6, libc++.so.1, libc++abi.so.1: the C++ runtimes KE003 judges.
bool is_cxx_runtime_library(std::string_view library);

// Shell-style match with `*` as the only wildcard (policy library patterns).
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace kcheck
