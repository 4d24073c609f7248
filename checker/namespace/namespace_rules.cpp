#include "checker/namespace/namespace_rules.h"

#include "checker/namespace/rules/namespace_rule_factories.h"

namespace kcheck {

void add_namespace_rules(RuleRegistry& registry) {
  registry.add(make_ko001_registered_namespace_mismatch());
  registry.add(make_ko002_namespace_without_unique_part());
  registry.add(make_ko003_literal_op_namespace());
  registry.add(make_ko004_literal_torch_ops_namespace());
  registry.add(make_ko005_namespace_reused_across_revisions());
}

}  // namespace kcheck
