#pragma once
// Builds facts by hand for rule tests: a variant from Python sources, and a
// way to run one rule over a tree under a policy.
#include <map>
#include <string>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/rule.h"
#include "checker/facts/tree_facts.h"

namespace kcheck::testing {

inline constexpr const char* kVariantName = "torch212-cxx11-cpu-x86_64-linux";

// A CPU variant of kernel `relu` with id _relu_cpu_0a1b2c3 and the given
// Python files (variant-relative path -> source).
inline VariantFacts make_variant(const std::map<std::string, std::string>& python_sources) {
  VariantFacts variant;
  variant.directory_name = kVariantName;
  variant.relative_path = std::string("build/") + kVariantName;
  std::string why_not;
  variant.name = parse_variant_name(kVariantName, &why_not);
  variant.metadata.present = true;
  variant.metadata.id = "_relu_cpu_0a1b2c3";
  variant.metadata.name = "relu";
  variant.metadata.backend_type = "cpu";
  variant.metadata.python_depends = std::vector<std::string>{};
  for (const auto& [path, source] : python_sources) {
    variant.python_files.push_back(analyse_python_source(source, path));
    variant.files.push_back(FileEntry{.relative_path = path});
  }
  return variant;
}

inline TreeFacts make_tree(VariantFacts variant) {
  TreeFacts tree;
  tree.build_dir_exists = true;
  tree.variants.push_back(std::move(variant));
  return tree;
}

inline Findings run_rule(const Rule& rule, const TreeFacts& tree, const Policy& policy,
                         const AuditOptions& options = AuditOptions{}) {
  Findings findings;
  FindingSink sink(rule.info(), findings, policy.severity_for(rule.info().code, rule.info().default_severity));
  rule.check(RuleContext{tree, policy, options.rule_options()}, sink);
  return findings;
}

inline const Policy& hub_policy() {
  static const Policy policy = load_policy("hub");
  return policy;
}

}  // namespace kcheck::testing
