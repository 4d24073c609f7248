#pragma once
#include "checker/core/rule_registry.h"

namespace kcheck {

// Registers KD001, KD003, KD005 and KO006: they judge the dynamic facts of
// `kcheck run` (VariantFacts::harness) and are silent without them.
void add_harness_rules(RuleRegistry& registry);

}  // namespace kcheck
