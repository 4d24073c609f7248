#include <span>

#include "checker/audit/audit.h"
#include "checker/core/rule_table.h"
// The includes of every family's table and kAllRuleTables, generated from
// rules/families.toml (cmake/rule_families.cmake).
#include "all_rule_tables.inc"

namespace kcheck {

// Every family's table (checker/<family>/rules/<family>_rule_table.h). The
// harness family's rules judge facts `kcheck run` adds and are silent without
// them; registering them needs only their facts, not the harness itself.
RuleRegistry make_rule_registry() {
  RuleRegistry registry;
  for (const std::span<const RuleFactory> family : kAllRuleTables) add_rules(registry, family);
  return registry;
}

}  // namespace kcheck
