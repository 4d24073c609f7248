// metadata.json: the JSON parse and typed view, then the KM rules on a CUDA
// variant holding it (no files: the digest is not recomputed here).
#include "checker/metadata/metadata_reader.h"
#include "checker/metadata/rules/metadata_rule_table.h"
#include "fuzz/fuzz_support.h"

using namespace kcheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Policy policy = load_policy("hub");
  static const RuleRegistry rules = [] {
    RuleRegistry registry;
    add_rules(registry, kMetadataRules);
    return registry;
  }();
  TreeFacts tree;
  tree.scope = AuditScope::variant;
  VariantFacts& variant = tree.variants.emplace_back();
  variant.directory_name = "torch211-cxx11-cu130-x86_64-linux";
  variant.name = parse_variant_name(variant.directory_name);
  variant.metadata = parse_metadata_text(fuzz::as_text(data, size), true);
  variant.metadata.relative_path = "metadata.json";
  fuzz::run_rules(rules, tree, policy, false, "kernels-community/relu");
  return 0;
}
