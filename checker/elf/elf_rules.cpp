#include "checker/elf/elf_rules.h"

#include "checker/elf/rules/elf_rule_factories.h"

namespace kcheck {

void add_elf_rules(RuleRegistry& registry) {
  registry.add(make_ke001_glibc_symbol_ceiling());
  registry.add(make_ke002_cxx_runtime_symbol_ceiling());
  registry.add(make_ke003_dynamic_cxx_runtime());
  registry.add(make_ke004_unexpected_library());
  registry.add(make_ke005_not_abi3());
  registry.add(make_ke006_unstable_torch_symbol());
  registry.add(make_ke007_wrong_binary_format());
  registry.add(make_ke008_missing_pyinit());
  registry.add(make_ke009_default_visibility_exports());
  registry.add(make_ke010_rpath_leaves_variant());
  registry.add(make_ke011_writable_executable_memory());
  registry.add(make_ke012_hardening_and_build_leaks());
  registry.add(make_ke013_macos_minimum());
  registry.add(make_ke014_device_code());
}

}  // namespace kcheck
