#include "checker/audit/audit.h"
#include "checker/config/config_rules.h"
#include "checker/elf/elf_rules.h"
#include "checker/harness/harness_rules.h"
#include "checker/layout/layout_rules.h"
#include "checker/metadata/metadata_rules.h"
#include "checker/namespace/namespace_rules.h"
#include "checker/python/python_rules.h"

namespace kcheck {

RuleRegistry make_rule_registry() {
  RuleRegistry registry;
  add_layout_rules(registry);
  add_metadata_rules(registry);
  add_elf_rules(registry);
  add_python_rules(registry);
  add_namespace_rules(registry);
  add_config_rules(registry);
  add_harness_rules(registry);
  return registry;
}

}  // namespace kcheck
