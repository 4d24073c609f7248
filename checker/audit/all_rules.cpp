#include "checker/audit/audit.h"
#include "checker/config/rules/config_rule_table.h"
#include "checker/elf/rules/elf_rule_table.h"
#include "checker/harness/rules/harness_rule_table.h"
#include "checker/layout/rules/layout_rule_table.h"
#include "checker/metadata/rules/metadata_rule_table.h"
#include "checker/namespace/rules/namespace_rule_table.h"
#include "checker/python/rules/python_rule_table.h"

namespace kcheck {

// Every family's table (checker/<family>/rules/<family>_rule_table.h). The
// harness family's rules judge facts `kcheck run` adds and are silent without
// them; registering them needs only their facts, not the harness itself.
RuleRegistry make_rule_registry() {
  RuleRegistry registry;
  for (const std::span<const RuleFactory> family :
       {std::span<const RuleFactory>(kLayoutRules), std::span<const RuleFactory>(kMetadataRules),
        std::span<const RuleFactory>(kElfRules), std::span<const RuleFactory>(kPythonRules),
        std::span<const RuleFactory>(kNamespaceRules), std::span<const RuleFactory>(kConfigRules),
        std::span<const RuleFactory>(kHarnessRules)}) {
    add_rules(registry, family);
  }
  return registry;
}

}  // namespace kcheck
