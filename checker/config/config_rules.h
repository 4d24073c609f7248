#pragma once
#include "checker/core/rule_registry.h"

namespace kcheck {

// Registers KC001–KC005 (build.toml of a kernel source tree).
void add_config_rules(RuleRegistry& registry);

}  // namespace kcheck
