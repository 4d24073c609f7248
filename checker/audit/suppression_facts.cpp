#include "checker/audit/suppression_facts.h"

namespace kcheck {

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
