#include "checker/python/python_rules.h"

#include "checker/python/rules/python_rule_factories.h"

namespace kcheck {

void add_python_rules(RuleRegistry& registry) {
  registry.add(make_kp001_own_package_absolute_import());
  registry.add(make_kp002_import_not_allowed());
  registry.add(make_kp003_syntax_newer_than_floor());
  registry.add(make_kp004_public_api_all());
  registry.add(make_kp005_layer_purity());
  registry.add(make_kp006_executes_or_fetches());
  registry.add(make_kp007_python_syntax_error());
}

}  // namespace kcheck
