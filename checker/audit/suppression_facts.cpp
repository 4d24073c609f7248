#include "checker/audit/suppression_facts.h"

#include "checker/config/repository_config.h"

namespace kcheck {

std::vector<bool> apply_suppressions(const SuppressionConfig& config, std::string_view path_prefix,
                                     const SuppressionTrust& trust, Findings& findings, const AuditDeadline& deadline) {
  std::vector<bool> matched(config.entries.size(), false);
  std::vector<std::size_t> applied;
  for (std::size_t i = 0; i < config.entries.size(); ++i)
    if (why_suppression_not_applied(config.entries[i], trust).empty()) applied.push_back(i);
  if (applied.empty()) return matched;
  for (Finding& finding : findings) {
    deadline.check();
    if (finding.suppressed) continue;
    std::string path = finding.file.empty() ? std::string() : std::string(path_prefix) + finding.file;
    for (const std::size_t index : applied) {
      const Suppression& suppression = config.entries[index];
      if (!finding.code.starts_with(suppression.code)) continue;
      if (!suppression.path.empty() && !glob_matches(suppression.path, path)) continue;
      matched[index] = true;
      finding.suppressed = true;
      finding.suppression_reason = suppression.reason.empty()
                                       ? config.file + ":" + std::to_string(suppression.line) + " (no reason given)"
                                       : suppression.reason;
      break;
    }
  }
  return matched;
}

void read_suppression_facts(TreeFacts& tree) {
  SuppressionScope scope{tree.audited_root, ""};
  if (tree.scope == AuditScope::variant || tree.scope == AuditScope::module)
    scope = suppression_scope(tree.audited_root);
  tree.suppressions = load_suppressions(scope.repository_root);
  tree.suppression_path_prefix = scope.prefix;
}

std::vector<bool> apply_tree_suppressions(const TreeFacts& tree, const SuppressionTrust& trust, Findings& findings,
                                          const AuditDeadline& deadline) {
  if (!tree.suppressions) return {};
  return apply_suppressions(*tree.suppressions, tree.suppression_path_prefix, trust, findings, deadline);
}

}  // namespace kcheck
