#include "checker/layout/layout_rules.h"

#include "checker/layout/rules/layout_rule_factories.h"

namespace kcheck {

void add_layout_rules(RuleRegistry& registry) {
  registry.add(make_kl001_no_build_directory());
  registry.add(make_kl002_variant_name_grammar());
  registry.add(make_kl003_no_importable_package());
  registry.add(make_kl004_compatibility_package());
  registry.add(make_kl005_files_that_must_not_ship());
  registry.add(make_kl006_incomplete_variant_set());
  registry.add(make_kl007_links_and_special_files());
  registry.add(make_kl008_native_module_name());
}

}  // namespace kcheck
