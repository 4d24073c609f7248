#include "checker/audit/audit.h"
#include <iterator>

#include "checker/audit/repository_settings.h"
#include "checker/audit/suppression_facts.h"
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
  const RuleContext context{tree, policy, options.rule_options(), &rules};
  const auto judges = [&](const Rule& rule) {
    return options.selection.selects(rule.info().code) && rule.info().needs <= tree.collected;
  };
  for (const Rule* rule : rules.rules()) {
    if (!judges(*rule)) continue;
    options.deadline.check();
    report.rules_run.push_back(rule->info().code);
    FindingSink sink(rule->info(), report.findings,
                     policy.severity_for(rule->info().code, rule->info().default_severity));
    rule->check(context, sink);
  }
  const std::vector<bool> matched = apply_tree_suppressions(
      tree, suppression_trust(policy, options.apply_repository_suppressions), report.findings, options.deadline);
  // What the rules add once they see the judgement (KC007: suppressions that
  // hid nothing), kept apart until all have looked at the same findings.
  Findings afterwards;
  const Judgement judged{report.rules_run, matched};
  for (const Rule* rule : rules.rules()) {
    if (!judges(*rule)) continue;
    FindingSink sink(rule->info(), afterwards, policy.severity_for(rule->info().code, rule->info().default_severity));
    rule->after_judgement(context, judged, sink);
  }
  report.findings.insert(report.findings.end(), std::make_move_iterator(afterwards.begin()),
                         std::make_move_iterator(afterwards.end()));
  finalise_report(report);
  return report;
}

bool is_source_repository(const std::filesystem::path& input) {
  std::error_code error;
  return std::filesystem::is_directory(input, error) && std::filesystem::exists(input / "build.toml", error) &&
         !std::filesystem::exists(std::filesystem::symlink_status(input / "build", error));
}

Report run_source_audit(const std::filesystem::path& kernel_dir, const Policy& policy, const AuditOptions& options,
                        const RuleRegistry& rules) {
  Report report = judge(collect_source_audit_facts(kernel_dir, options, rules), policy, options, rules);
  report.input = kernel_dir.string();
  return report;
}

Report run_audit_of_build(const std::filesystem::path& input, const Policy& policy, const AuditOptions& options,
                          const RuleRegistry& rules) {
  Report report = judge(collect_facts(input, options, rules), policy, options, rules);
  report.input = input.string();
  return report;
}

Report run_audit(const std::filesystem::path& input, const Policy& policy, const AuditOptions& options,
                 const RuleRegistry& rules) {
  const TreeFacts tree = is_source_repository(input) ? collect_source_audit_facts(input, options, rules)
                                                     : collect_facts(input, options, rules);
  Report report = judge(tree, policy, options, rules);
  report.input = input.string();
  return report;
}

}  // namespace kcheck
