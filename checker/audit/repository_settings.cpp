#include "checker/audit/repository_settings.h"

#include "checker/config/repository_config.h"

namespace kcheck {

namespace {

// The policy the repository names, or nothing where it cannot be used (KC007
// reports why, and the caller's policy judges). A file of its own is named as
// the repository's (it cannot pass for an embedded one), and it cannot grant
// the repository more than the caller's policy does.
std::optional<Policy> repository_policy(const SuppressionConfig& config, const Policy& given) {
  const RepositorySettings& settings = config.settings;
  if (!config.policy_problem.empty() || !config.own_policy) return std::nullopt;
  if (config.own_policy_embedded) {
    Policy policy = *config.own_policy;
    policy.rule_severity = given.rule_severity;  // the caller's overlay (--security's) stays
    return policy;
  }
  Policy policy = *config.own_policy;
  // Never the name the file gives itself: a file that calls itself "hub"
  // must not read as the Hub's policy in a report (issue #28 item 9).
  policy.name = "custom policy " + settings.policy + " (the repository's)";
  policy.source = config.file + ":" + std::to_string(settings.policy_line) + ": " + settings.policy;
  policy.suppression_code_prefixes_allowed = given.suppression_code_prefixes_allowed;
  // Nor can it change a rule's severity ([severity]): an upload does not
  // weigh its own findings; the caller's overlay (--security's) stays.
  policy.rule_severity = given.rule_severity;
  return policy;
}

}  // namespace

Policy policy_for_repository(const TreeFacts& source, const Policy& given, const AuditOptions& options) {
  if (!options.apply_repository_suppressions || options.policy_from_command_line) return given;
  const std::optional<SuppressionConfig>& config = source.suppressions;
  if (!config || config->settings.policy.empty()) return given;
  // A build is pinned to the policy's ceilings: one it cannot read is a refusal, never a silent fallback.
  if (!config->policy_problem.empty()) throw PolicyError(config->policy_problem);
  return repository_policy(*config, given).value_or(given);
}

SettledAudit settle_repository_settings(const TreeFacts& tree, const Policy& policy, const AuditOptions& options,
                                        const RuleRegistry& rules) {
  SettledAudit settled{std::nullopt, options};
  if (!tree.suppressions || !options.apply_repository_suppressions) return settled;
  const RepositorySettings& settings = tree.suppressions->settings;
  if (!settings.policy.empty() && !options.policy_from_command_line)
    settled.repository_policy = repository_policy(*tree.suppressions, policy);
  CodeSelection& selection = settled.options.selection;
  // A config or policy that cannot be used changes what judges the
  // repository: KC007 says so whatever the caller selected (--select KE001,
  // `kcheck run`'s KD rules), never a silent fallback to the caller's policy.
  const bool config_problem = !tree.suppressions->unusable.empty() ||
                              (!options.policy_from_command_line && !tree.suppressions->policy_problem.empty());
  if (config_problem && !selection.select.empty() && !selection.selects("KC007"))
    selection.select.emplace_back("KC007");
  if (settings.select && selection.select.empty()) {
    for (const CodeSetting& code : *settings.select)
      if (rules.names_a_rule(code.code)) selection.select.push_back(code.code);
    // The rules that judge the config itself run whatever it selects.
    if (!selection.select.empty())
      for (const Rule* rule : rules.rules())
        if (rule->info().guards_the_configuration) selection.select.push_back(rule->info().code);
  }
  // Prefixes as the caller's policy allows them: the repository's cannot widen that.
  const SuppressionTrust trust{true, policy.suppression_code_prefixes_allowed};
  for (const CodeSetting& code : settings.ignore)
    if (rules.names_a_rule(code.code) && why_setting_not_applied(code.code, trust).empty() &&
        !rules.switches_off_a_configuration_guard(code.code))
      selection.ignore.push_back(code.code);
  if (settings.strict) settled.options.strict = options.strict || *settings.strict;
  return settled;
}

}  // namespace kcheck
