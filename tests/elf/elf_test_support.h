#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/rule.h"
#include "checker/facts/tree_facts.h"
#include "checker/elf/rules/elf_rule_table.h"
#include "checker/kinds/variant_name.h"

namespace kcheck::testing {

inline std::filesystem::path elf_fixture(const std::string& name) {
  return std::filesystem::path(KCHECK_ELF_FIXTURES_DIR) / name;
}

// Why an ELF fixture that needs an optional toolchain (a cross compiler, nvcc,
// hipcc, clang + ld64.lld) was not built here; "" for every other fixture.
inline std::string why_fixture_not_built(std::string_view name) {
  if (name.starts_with("_foreign")) return KCHECK_FOREIGN_FIXTURE_MISSING;
  if (name.starts_with("_cuda_kernel")) return KCHECK_CUDA_FIXTURE_MISSING;
  if (name.starts_with("_hip_kernel")) return KCHECK_HIP_FIXTURE_MISSING;
  if (name.starts_with("_macho")) return KCHECK_MACHO_FIXTURE_MISSING;
  return "";
}

// Skips the test, saying which toolchain is missing, when the fixture could not
// be built here; a fixture that should have been built and is missing fails.
#define KCHECK_REQUIRE_FIXTURE(name)                                                                       \
  do {                                                                                                     \
    if (const std::string why = ::kcheck::testing::why_fixture_not_built(name); !why.empty())              \
      GTEST_SKIP() << (name) << " was not built: " << why;                                                 \
    ASSERT_TRUE(std::filesystem::exists(::kcheck::testing::elf_fixture(name))) << (name) << " is missing"; \
  } while (false)

// A tree holding one native module: in variant `variant_directory` (a
// variant audit), or alone (a module audit) when it is empty.
inline TreeFacts tree_with_module(const std::filesystem::path& module, const std::string& variant_directory,
                                  const std::string& relative_path = "") {
  TreeFacts tree;
  VariantFacts variant;
  if (variant_directory.empty()) {
    tree.scope = AuditScope::module;
  } else {
    tree.scope = AuditScope::variant;
    variant.directory_name = variant_directory;
    variant.relative_path = "build/" + variant_directory;
    variant.name = parse_variant_name(variant_directory);
  }
  NativeModuleFacts facts;
  facts.relative_path = relative_path.empty() ? module.filename().string() : relative_path;
  if (module.extension() == ".so" && module.filename().string().starts_with("_macho"))
    facts.macho = read_macho_facts(module);
  else
    facts.elf = read_elf_facts(module);
  variant.native_modules.push_back(std::move(facts));
  tree.variants.push_back(std::move(variant));
  return tree;
}

// Runs every KE rule; returns the findings sorted by code.
inline Findings run_native_rules(const TreeFacts& tree, const Policy& policy) {
  RuleRegistry registry;
  add_rules(registry, kElfRules);
  const AuditOptions options;
  const RuleContext context{tree, policy, options.rule_options()};
  Findings findings;
  for (const Rule* rule : registry.rules()) {
    FindingSink sink(rule->info(), findings);
    rule->check(context, sink);
  }
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& a, const Finding& b) { return a.code < b.code; });
  return findings;
}

inline std::vector<std::string> codes_of(const Findings& findings) {
  std::vector<std::string> codes;
  for (const Finding& finding : findings) codes.push_back(finding.code);
  return codes;
}

}  // namespace kcheck::testing
