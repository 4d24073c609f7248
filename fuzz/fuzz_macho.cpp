// Mach-O: kcheck's own load-command walk, then (only when the walk accepts
// the image, as in an audit) LIEF's symbol and library tables, then the KE
// rules that judge darwin modules.
#include "checker/elf/rules/elf_rule_table.h"
#include "checker/kinds/macho_facts.h"
#include "checker/macho/macho_load_commands.h"
#include "fuzz/fuzz_support.h"

using namespace kcheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Policy policy = load_policy("hub");
  static const RuleRegistry rules = [] {
    RuleRegistry registry;
    add_rules(registry, kElfRules);
    return registry;
  }();
  read_macho_header({reinterpret_cast<const std::byte*>(data), size});
  const fuzz::MemoryFile file(data, size);
  TreeFacts tree;
  tree.scope = AuditScope::variant;
  VariantFacts& variant = tree.variants.emplace_back();
  variant.directory_name = "torch211-metal-aarch64-darwin";
  variant.name = parse_variant_name(variant.directory_name);
  NativeModuleFacts& module = variant.native_modules.emplace_back();
  module.relative_path = "_fuzz_metal_0123456.abi3.so";
  module.macho = read_macho_facts(file.path());
  fuzz::run_rules(rules, tree, policy, false);
  return 0;
}
