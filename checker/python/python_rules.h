#pragma once
#include "checker/core/rule_registry.h"

namespace kcheck {

// Registers KP001–KP007.
void add_python_rules(RuleRegistry& registry);

}  // namespace kcheck
