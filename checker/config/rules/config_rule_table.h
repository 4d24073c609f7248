#pragma once
// The config family (KC): build.toml and the repository's kcheck.toml.
// The family's registration table: one line per rule, in code order. A rule is
// its file rules/<code>_<what>.cpp, which defines the factory this line names
// (`make_<code>_<what>`), and this line (scripts/new-rule.py writes both).
#include "checker/core/rule_table.h"

#define KCHECK_CONFIG_RULES(RULE)         \
  RULE(kc001_not_toml)                    \
  RULE(kc002_schema_violation)            \
  RULE(kc003_listed_path_invalid)         \
  RULE(kc004_python_package_missing)      \
  RULE(kc005_restricts_required_variants) \
  RULE(kc006_suppression_without_reason)  \
  RULE(kc007_suppression_not_applied)

namespace kcheck {

KCHECK_CONFIG_RULES(KCHECK_DECLARE_RULE_FACTORY)

inline constexpr RuleFactory kConfigRules[] = {KCHECK_CONFIG_RULES(KCHECK_RULE_FACTORY_ENTRY)};

}  // namespace kcheck
