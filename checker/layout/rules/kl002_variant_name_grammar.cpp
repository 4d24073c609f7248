#include "checker/facts/tree_facts.h"
#include "checker/layout/rules/layout_rule_table.h"

namespace kcheck {
namespace {

class VariantNameGrammar final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    if (context.tree.scope == AuditScope::module) return;
    for (const VariantFacts& variant : context.tree.variants)
      if (!variant.name)
        sink.report({.variant = variant.directory_name, .file = variant.relative_path}, variant.name_error);
  }

 private:
  RuleInfo info_{"KL002",
                 "Variant directory name does not follow the variant grammar",
                 Severity::error,
                 R"(Every directory in build/ is one build variant, and its name is how the
loader picks a build for the running system: framework and version, C++ ABI
tag (Linux only), compute backend and version, CPU and OS. The loader skips a
directory whose name does not parse, so that build can never be loaded.

Accepted forms (build-variants.md §1):
    torch<MAJ><MIN>[-cxx11|-cxx98]-<compute>-<cpu>-<os>   torch213-cxx11-cu130-x86_64-linux
    torch-stable-abi<MAJ><MIN>-<compute>-<cpu>-<os>       torch-stable-abi211-cu126-aarch64-linux
    tvm-ffi<MAJ><MIN>-<compute>-<cpu>-<os>                tvm-ffi01-cu132-x86_64-linux
    torch-<backend>                                       torch-cuda
A cxx tag on a darwin or windows name is invalid too.

Fix: rename the directory to the name the builder would give it, e.g.
`torch2.13-cuda13.0-linux` -> `torch213-cxx11-cu130-x86_64-linux`.)",
                 R"ex(build/torch2.13-cuda13.0-linux/)ex",
                 R"ex(build/torch213-cxx11-cu130-x86_64-linux/)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_kl002_variant_name_grammar() { return std::make_unique<VariantNameGrammar>(); }

}  // namespace kcheck
