#include "checker/harness/harness_rules.h"

#include "checker/harness/rules/harness_rule_factories.h"

namespace kcheck {

void add_harness_rules(RuleRegistry& registry) {
  registry.add(make_kd001_load_failure());
  registry.add(make_kd002_wrong_result());
  registry.add(make_kd003_crash_or_hang());
  registry.add(make_kd004_no_kernel_for_backend());
  registry.add(make_kd005_variant_not_runnable());
  registry.add(make_kd006_python_import_fails());
  registry.add(make_kb001_benchmark_result());
  registry.add(make_kb002_benchmark_regression());
  registry.add(make_ko006_foreign_registration());
}

}  // namespace kcheck
