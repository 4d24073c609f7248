#pragma once
#include <memory>
#include <span>

#include "checker/core/rule.h"
#include "checker/core/rule_registry.h"

namespace kcheck {

// Makes one rule. Each family lists its rules' factories in one table,
// checker/<family>/rules/<family>_rule_table.h, one line per rule.
using RuleFactory = std::unique_ptr<Rule> (*)();

inline void add_rules(RuleRegistry& registry, std::span<const RuleFactory> table) {
  for (const RuleFactory make : table) registry.add(make());
}

}  // namespace kcheck

// What a family's table line RULE(<code>_<what>) expands to: the factory's
// declaration, and its entry in the family's RuleFactory array.
#define KCHECK_DECLARE_RULE_FACTORY(name) std::unique_ptr<Rule> make_##name();
#define KCHECK_RULE_FACTORY_ENTRY(name) &make_##name,
