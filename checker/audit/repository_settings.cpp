#include "checker/audit/repository_settings.h"

namespace kcheck {

SettledAudit settle_repository_settings(const TreeFacts& tree, const Policy& policy, const AuditOptions& options,
                                        const RuleRegistry& rules) {
  SettledAudit settled{std::nullopt, options};
  if (!tree.suppressions || !options.apply_repository_suppressions) return settled;
  const RepositorySettings& settings = tree.suppressions->settings;
  const std::string source = tree.suppressions->file;
  if (!settings.policy.empty() && !options.policy_from_command_line) {
    try {
      settled.repository_policy = settings.policy_file_text ? parse_policy(*settings.policy_file_text, settings.policy)
                                                            : load_policy(settings.policy);
    } catch (const PolicyError& error) {
      throw PolicyError(source + ":" + std::to_string(settings.policy_line) + ": policy '" + settings.policy +
                        "': " + error.what());
    }
  }
  CodeSelection& selection = settled.options.selection;
  if (settings.select && selection.select.empty())
    for (const CodeSetting& code : *settings.select)
      if (rules.names_a_rule(code.code)) selection.select.push_back(code.code);
  const SuppressionTrust trust{true, settled.policy(policy).suppression_code_prefixes_allowed};
  for (const CodeSetting& code : settings.ignore)
    if (rules.names_a_rule(code.code) && why_setting_not_applied(code.code, trust).empty())
      selection.ignore.push_back(code.code);
  if (settings.strict) settled.options.strict = options.strict || *settings.strict;
  return settled;
}

}  // namespace kcheck
