#include "checker/harness/harness_rules.h"

#include "checker/harness/rules/harness_rule_factories.h"

namespace kcheck {

void add_harness_rules(RuleRegistry& registry) {
  registry.add(make_kd001_load_failure());
  registry.add(make_kd003_crash_or_hang());
  registry.add(make_kd005_variant_not_runnable());
  registry.add(make_ko006_foreign_registration());
}

}  // namespace kcheck
