#pragma once
#include "checker/core/rule_registry.h"

namespace kcheck {

// Registers KE001–KE014 (native modules: ELF, and Mach-O for darwin variants).
void add_elf_rules(RuleRegistry& registry);

}  // namespace kcheck
