#pragma once
#include "checker/core/rule_registry.h"

namespace kcheck {

// Registers KM001–KM010.
void add_metadata_rules(RuleRegistry& registry);

}  // namespace kcheck
