#include "checker/core/policy.h"
#include "checker/facts/tree_facts.h"
#include "checker/layout/rules/layout_rule_table.h"

namespace kcheck {
namespace {

class NoBuildDirectory final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const TreeFacts& tree = context.tree;
    if (tree.scope != AuditScope::tree) return;
    if (!tree.build_dir_exists) {
      sink.report({.file = "build"},
                  "no build/ directory: a Hub kernel repository keeps its variants in build/<variant>/");
    } else if (tree.variants.empty()) {
      sink.report({.file = "build"}, "build/ holds no variant directories");
    }
  }

 private:
  RuleInfo info_{"KL001",
                 "No build/ directory, or no variants in it",
                 Severity::error,
                 R"(A kernel repository on the Hub keeps every build of the kernel under
build/, one directory per build variant (e.g. build/torch213-cxx11-cu130-x86_64-linux/).
The loader lists build/ to find a variant for the running system; without it,
or with nothing in it, no system can load the kernel.

Fix: build the kernel (`kcheck build` or kernel-builder) and upload the whole
build/ directory.
)",
                 R"ex(my-kernel/
  build.toml
  torch-ext/...          # sources only, no build/)ex",
                 R"ex(my-kernel/
  build.toml
  torch-ext/...
  build/torch213-cxx11-cpu-x86_64-linux/...   # from `kcheck build` or kernel-builder)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_kl001_no_build_directory() { return std::make_unique<NoBuildDirectory>(); }

}  // namespace kcheck
