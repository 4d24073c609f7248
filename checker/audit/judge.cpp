#include "checker/audit/audit.h"
#include "checker/audit/suppression_facts.h"
#include "checker/core/kernel_identity.h"

namespace kcheck {

namespace {

std::string_view scope_name(AuditScope scope) {
  switch (scope) {
    case AuditScope::tree: return "tree";
    case AuditScope::variant: return "variant";
    case AuditScope::module: return "module";
    case AuditScope::source: return "source";
  }
  return "tree";
}

std::vector<VariantSummary> summarise_variants(const TreeFacts& tree) {
  std::vector<VariantSummary> variants;
  if (tree.scope == AuditScope::module) return variants;
  for (const VariantFacts& variant : tree.variants)
    variants.push_back({variant.directory_name, variant.relative_path, variant_backend(variant).value_or(""), {}});
  return variants;
}

}  // namespace

Report judge(const TreeFacts& tree, const Policy& policy, const AuditOptions& options, const RuleRegistry& rules) {
  Report report;
  report.tool_version = KCHECK_VERSION;
  report.policy_name = policy.name;
  report.policy_source = policy.source;
  report.audited_root = tree.audited_root.string();
  report.scope = std::string(scope_name(tree.scope));
  report.strict = options.strict;
  report.variants = summarise_variants(tree);
  RuleContext context{tree, policy, options};
  for (const Rule* rule : rules.rules()) {
    if (!options.selection.selects(rule->info().code)) continue;
    options.deadline.check();
    report.rules_run.push_back(rule->info().code);
    FindingSink sink(rule->info(), report.findings);
    rule->check(context, sink);
  }
  apply_tree_suppressions(tree, suppression_trust(policy, options), report.findings, options.deadline);
  finalise_report(report);
  return report;
}

Report run_audit(const std::filesystem::path& input, const Policy& policy, const AuditOptions& options,
                 const RuleRegistry& rules) {
  Report report = judge(collect_facts(input, options), policy, options, rules);
  report.input = input.string();
  return report;
}

}  // namespace kcheck
