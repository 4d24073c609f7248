#pragma once
// The namespace family (KO): op namespaces, statically and as registered at run time.
// The family's registration table: one line per rule, in code order. A rule is
// its file rules/<code>_<what>.cpp, which defines the factory this line names
// (`make_<code>_<what>`), and this line (scripts/new-rule.py writes both).
#include "checker/core/rule_table.h"

#define KCHECK_NAMESPACE_RULES(RULE)            \
  RULE(ko001_registered_namespace_mismatch)     \
  RULE(ko002_namespace_without_unique_part)     \
  RULE(ko003_literal_op_namespace)              \
  RULE(ko004_literal_torch_ops_namespace)       \
  RULE(ko005_namespace_reused_across_revisions) \
  RULE(ko006_foreign_registration)              \
  RULE(ko007_op_called_but_never_registered)

namespace kcheck {

KCHECK_NAMESPACE_RULES(KCHECK_DECLARE_RULE_FACTORY)

inline constexpr RuleFactory kNamespaceRules[] = {KCHECK_NAMESPACE_RULES(KCHECK_RULE_FACTORY_ENTRY)};

}  // namespace kcheck
