#include "checker/config/config_rules.h"

#include "checker/config/rules/config_rule_factories.h"

namespace kcheck {

void add_config_rules(RuleRegistry& registry) {
  registry.add(make_kc001_not_toml());
  registry.add(make_kc002_schema_violation());
  registry.add(make_kc003_listed_path_invalid());
  registry.add(make_kc004_python_package_missing());
  registry.add(make_kc005_restricts_required_variants());
  registry.add(make_kc006_suppression_without_reason());
  registry.add(make_kc007_suppression_not_applied());
}

}  // namespace kcheck
