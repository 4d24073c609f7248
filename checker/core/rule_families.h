#pragma once
#include <span>
#include <string_view>

namespace kcheck {

// A family of rule codes (a code's two letters): where its rules live and
// how reports name it. The one list is rules/families.toml; CMake generates
// the table this reads from it (cmake/rule_families.cmake), as it generates
// the registry (checker/audit/all_rules.cpp), and scripts/new-rule.py and
// scripts/check-layers.py read the same file.
struct RuleFamily {
  std::string_view prefix;  // "KE"
  std::string_view folder;  // "elf": checker/elf/rules/ holds its rules
  std::string_view name;    // "native module": a JUnit test case
  std::string_view title;   // "native modules (ELF and Mach-O)": the rule catalogue's heading
  // What must have happened before its rules can judge: "source", "build", "run", "bench".
  std::string_view judges;
};

// Every family, in rules/families.toml's order.
std::span<const RuleFamily> rule_families();

// The family of a code by its letters ("KE015" -> KE); nullptr for none.
const RuleFamily* family_of_code(std::string_view code);

}  // namespace kcheck
