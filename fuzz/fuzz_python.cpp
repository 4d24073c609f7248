// The Python tokenizer, statement parser and analyser, then the KP and KO
// rules (run with --security so KP006's error path is covered too).
#include "checker/namespace/rules/namespace_rule_table.h"
#include "checker/kinds/python_facts.h"
#include "checker/python/rules/python_rule_table.h"
#include "checker/python/python_tokenizer.h"
#include "fuzz/fuzz_support.h"

using namespace kcheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Policy policy = load_policy("hub");
  static const RuleRegistry rules = [] {
    RuleRegistry registry;
    add_rules(registry, kPythonRules);
    add_rules(registry, kNamespaceRules);
    return registry;
  }();
  const std::string_view source = fuzz::as_text(data, size);
  python::tokenize(source);
  TreeFacts tree;
  tree.scope = AuditScope::variant;
  VariantFacts& variant = tree.variants.emplace_back();
  variant.directory_name = "torch211-cxx11-cpu-x86_64-linux";
  variant.name = parse_variant_name(variant.directory_name);
  variant.python_files.push_back(analyse_python_source(source, "__init__.py"));
  variant.python_files.push_back(analyse_python_source(source, "layers/__init__.py"));
  fuzz::run_rules(rules, tree, policy, true);
  return 0;
}
