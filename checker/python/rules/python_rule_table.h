#pragma once
// The python family (KP): the Python files a variant ships.
// The family's registration table: one line per rule, in code order. A rule is
// its file rules/<code>_<what>.cpp, which defines the factory this line names
// (`make_<code>_<what>`), and this line (scripts/new-rule.py writes both).
#include "checker/core/rule_table.h"

#define KCHECK_PYTHON_RULES(RULE)         \
  RULE(kp001_own_package_absolute_import) \
  RULE(kp002_import_not_allowed)          \
  RULE(kp003_syntax_newer_than_floor)     \
  RULE(kp004_public_api_all)              \
  RULE(kp005_layer_purity)                \
  RULE(kp006_executes_or_fetches)         \
  RULE(kp007_python_syntax_error)         \
  RULE(kp008_module_shadowed_by_package)

namespace kcheck {

KCHECK_PYTHON_RULES(KCHECK_DECLARE_RULE_FACTORY)

inline constexpr RuleFactory kPythonRules[] = {KCHECK_PYTHON_RULES(KCHECK_RULE_FACTORY_ENTRY)};

}  // namespace kcheck
