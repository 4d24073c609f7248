#pragma once
#include "checker/core/rule_registry.h"

namespace kcheck {

// Registers KO001–KO004.
void add_namespace_rules(RuleRegistry& registry);

}  // namespace kcheck
