#include "checker/layout/layout_rules.h"

#include "checker/layout/rules/layout_rule_factories.h"

namespace kcheck {

void add_layout_rules(RuleRegistry& registry) {
  registry.add(make_kl001_no_build_directory());
}

}  // namespace kcheck
