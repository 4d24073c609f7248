#pragma once
// Shared by the ELF benchmarks: every KE rule on one native module, the way
// `kcheck <file.so>` audits it (module scope, policy hub).
#include <cstring>
#include <filesystem>
#include <fstream>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/rule.h"
#include "checker/facts/tree_facts.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck::bench {

inline bool starts_with_elf_magic(const std::filesystem::path& file) {
  char magic[4] = {};
  std::ifstream(file, std::ios::binary).read(magic, 4);
  return std::memcmp(magic,
                     "\x7f"
                     "ELF",
                     4) == 0;
}

// Reads the module's facts once and runs all KE rules on them.
inline Findings audit_native_module(const std::filesystem::path& file, const Policy& policy,
                                    const RuleRegistry& rules) {
  TreeFacts tree;
  tree.scope = AuditScope::module;
  VariantFacts& variant = tree.variants.emplace_back();
  NativeModuleFacts& module = variant.native_modules.emplace_back();
  module.relative_path = file.filename().string();
  if (starts_with_elf_magic(file))
    module.elf = read_elf_facts(file);
  else
    module.macho = read_macho_facts(file);
  const AuditOptions options;
  const RuleContext context{tree, policy, options.rule_options()};
  Findings findings;
  for (const Rule* rule : rules.rules()) {
    FindingSink sink(rule->info(), findings);
    rule->check(context, sink);
  }
  return findings;
}

inline RuleRegistry native_module_rules() {
  RuleRegistry rules;
  add_rules(rules, kElfRules);
  return rules;
}

}  // namespace kcheck::bench
