#pragma once
#include "checker/core/rule_registry.h"

namespace kcheck {

// Registers KL001–KL008.
void add_layout_rules(RuleRegistry& registry);

}  // namespace kcheck
