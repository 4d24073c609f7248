// Issue #31: what collect_facts reads for a rule added by scripts/new-rule.py
// alone. tests/integrations/new_rule_reads_test.sh compiles the copy's new
// rule and its registry (generated from the copy's rules/families.toml and
// family tables) into PLUGIN; this program, linked with every kcheck library
// and exporting their symbols, loads it, collects the facts of TREE with only
// CODE selected, and prints which optional ELF tables were read:
//   rules <in the plugin's registry> <in this build's>
//   <variant>/<module> read_only_data=<0|1> build_leaks=<0|1> device_code=<0|1> op_namespaces=<0|1>
// usage: new_rule_probe PLUGIN TREE CODE
#include <dlfcn.h>

#include <cstdio>

#include "checker/audit/audit.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PLUGIN TREE CODE\n", argv[0]);
    return 2;
  }
  void* plugin = ::dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!plugin) {
    std::fprintf(stderr, "cannot load %s: %s\n", argv[1], ::dlerror());
    return 2;
  }
  using RegistryOfTheCopy = void (*)(kcheck::RuleRegistry*);
  const auto registry_of_the_copy = reinterpret_cast<RegistryOfTheCopy>(::dlsym(plugin, "kcheck_probe_registry"));
  if (!registry_of_the_copy) {
    std::fprintf(stderr, "%s defines no kcheck_probe_registry\n", argv[1]);
    return 2;
  }
  kcheck::RuleRegistry rules;
  registry_of_the_copy(&rules);
  std::printf("rules %zu %zu\n", rules.rules().size(), kcheck::make_rule_registry().rules().size());
  kcheck::AuditOptions options;
  options.selection.select = {argv[3]};
  const kcheck::TreeFacts tree = kcheck::collect_facts(argv[2], options, rules);
  for (const kcheck::VariantFacts& variant : tree.variants)
    for (const kcheck::NativeModuleFacts& module : variant.native_modules) {
      if (!module.elf) continue;
      const kcheck::ElfTables& read = module.elf->tables_read;
      std::printf("%s/%s read_only_data=%d build_leaks=%d device_code=%d op_namespaces=%d\n",
                  variant.directory_name.c_str(), module.relative_path.c_str(), read.read_only_data, read.build_leaks,
                  read.device_code, read.torch_library_namespaces);
    }
  return 0;
}
