#pragma once
// The layout family (KL): the tree, variant names and what a variant ships.
// The family's registration table: one line per rule, in code order. A rule is
// its file rules/<code>_<what>.cpp, which defines the factory this line names
// (`make_<code>_<what>`), and this line (scripts/new-rule.py writes both).
#include "checker/core/rule_table.h"

#define KCHECK_LAYOUT_RULES(RULE)      \
  RULE(kl001_no_build_directory)       \
  RULE(kl002_variant_name_grammar)     \
  RULE(kl003_no_importable_package)    \
  RULE(kl004_compatibility_package)    \
  RULE(kl005_files_that_must_not_ship) \
  RULE(kl006_incomplete_variant_set)   \
  RULE(kl007_links_and_special_files)  \
  RULE(kl008_native_module_name)

namespace kcheck {

KCHECK_LAYOUT_RULES(KCHECK_DECLARE_RULE_FACTORY)

inline constexpr RuleFactory kLayoutRules[] = {KCHECK_LAYOUT_RULES(KCHECK_RULE_FACTORY_ENTRY)};

}  // namespace kcheck
