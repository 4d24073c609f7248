#include "checker/audit/audit.h"
#include <algorithm>

#include "checker/audit/repository_settings.h"
#include "checker/audit/suppression_facts.h"
#include "checker/config/rules/config_rule_support.h"
#include "checker/facts/kernel_identity.h"

namespace kcheck {

namespace {

std::string_view scope_name(AuditScope scope) {
  switch (scope) {
    case AuditScope::tree:
      return "tree";
    case AuditScope::variant:
      return "variant";
    case AuditScope::module:
      return "module";
    case AuditScope::source:
      return "source";
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

// A suppression that hid nothing (like ruff's RUF100) is a KC007 note: the
// finding it was written for is gone, or its path never matched. Only one
// whose rules ran is judged (--select, and the KD rules outside `kcheck run`,
// leave others unmatched by design); one not applied is KC007's already.
void report_unmatched_suppressions(const TreeFacts& tree, const Policy& policy, const AuditOptions& options,
                                   const RuleRegistry& rules, const std::vector<bool>& matched, Report& report) {
  const Rule* kc007 = rules.find("KC007");
  if (!tree.suppressions || !kc007 || !options.selection.selects("KC007")) return;
  const SuppressionTrust trust = suppression_trust(policy, options);
  FindingSink sink(kc007->info(), report.findings);
  for (std::size_t i = 0; i < tree.suppressions->entries.size() && i < matched.size(); ++i) {
    const Suppression& suppression = tree.suppressions->entries[i];
    if (matched[i] || !why_suppression_not_applied(suppression, trust).empty()) continue;
    const bool ran = std::any_of(report.rules_run.begin(), report.rules_run.end(),
                                 [&](const std::string& code) { return code.starts_with(suppression.code); });
    if (!ran) continue;
    sink.report(suppression_place(tree, suppression), suppression_named(tree, suppression) +
                                                          " matched no finding: remove it (the finding it was "
                                                          "written for is gone, or its path never matches)");
  }
}

}  // namespace

Report judge(const TreeFacts& tree, const Policy& given_policy, const AuditOptions& given_options,
             const RuleRegistry& rules) {
  const SettledAudit settled = settle_repository_settings(tree, given_policy, given_options, rules);
  const Policy& policy = settled.policy(given_policy);
  const AuditOptions& options = settled.options;
  Report report;
  report.tool_version = KCHECK_VERSION;
  report.policy_name = policy.name;
  report.policy_source = policy.source;
  report.audited_root = tree.audited_root.string();
  report.scope = std::string(scope_name(tree.scope));
  report.strict = options.strict;
  report.variants = summarise_variants(tree);
  RuleContext context{tree, policy, options, &rules};
  for (const Rule* rule : rules.rules()) {
    if (!options.selection.selects(rule->info().code)) continue;
    options.deadline.check();
    report.rules_run.push_back(rule->info().code);
    FindingSink sink(rule->info(), report.findings);
    rule->check(context, sink);
  }
  const std::vector<bool> matched =
      apply_tree_suppressions(tree, suppression_trust(policy, options), report.findings, options.deadline);
  report_unmatched_suppressions(tree, policy, options, rules, matched, report);
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
