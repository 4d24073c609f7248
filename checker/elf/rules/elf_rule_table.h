#pragma once
// The elf family (KE): native modules (ELF, and Mach-O for darwin variants).
// The family's registration table: one line per rule, in code order. A rule is
// its file rules/<code>_<what>.cpp, which defines the factory this line names
// (`make_<code>_<what>`), and this line (scripts/new-rule.py writes both).
#include "checker/core/rule_table.h"

#define KCHECK_ELF_RULES(RULE)           \
  RULE(ke001_glibc_symbol_ceiling)       \
  RULE(ke002_cxx_runtime_symbol_ceiling) \
  RULE(ke003_dynamic_cxx_runtime)        \
  RULE(ke004_unexpected_library)         \
  RULE(ke005_not_abi3)                   \
  RULE(ke006_unstable_torch_symbol)      \
  RULE(ke007_wrong_binary_format)        \
  RULE(ke008_missing_pyinit)             \
  RULE(ke009_default_visibility_exports) \
  RULE(ke010_rpath_leaves_variant)       \
  RULE(ke011_writable_executable_memory) \
  RULE(ke012_hardening_and_build_leaks)  \
  RULE(ke013_macos_minimum)              \
  RULE(ke014_device_code)                \
  RULE(ke015_symbol_no_needed_library_provides)

namespace kcheck {

KCHECK_ELF_RULES(KCHECK_DECLARE_RULE_FACTORY)

inline constexpr RuleFactory kElfRules[] = {KCHECK_ELF_RULES(KCHECK_RULE_FACTORY_ENTRY)};

}  // namespace kcheck
