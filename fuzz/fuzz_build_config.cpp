// build.toml: toml++ parse, the schema and value checks, then the KC rules,
// from a kernel directory holding only that file (so every listed path is
// missing or escaping: KC003 runs on whatever the input lists).
#include <unistd.h>

#include <fstream>

#include "checker/kinds/build_config_facts.h"
#include "checker/config/rules/config_rule_table.h"
#include "fuzz/fuzz_support.h"

using namespace kcheck;

namespace {

std::filesystem::path make_kernel_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "kcheck-fuzz-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) __builtin_trap();
  return pattern;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Policy policy = load_policy("hub");
  static const RuleRegistry rules = [] {
    RuleRegistry registry;
    add_rules(registry, kConfigRules);
    return registry;
  }();
  static const std::filesystem::path kernel_dir = make_kernel_dir();
  {
    std::ofstream out(kernel_dir / "build.toml", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  TreeFacts tree;
  tree.scope = AuditScope::source;
  tree.audited_root = kernel_dir;
  tree.build_config = read_build_config(kernel_dir);
  fuzz::run_rules(rules, tree, policy, false);
  return 0;
}
