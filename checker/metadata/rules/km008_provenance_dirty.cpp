#include "checker/metadata/rules/metadata_rule_table.h"
#include "checker/metadata/rules/metadata_rule_support.h"

namespace kcheck {
namespace {

class ProvenanceDirty final : public PerVariantMetadataRule {
 public:
  const RuleInfo& info() const override { return info_; }

 protected:
  void check_variant(const VariantFacts& variant, const RuleContext&, FindingSink& sink) const override {
    if (!variant.metadata.provenance) return;
    const ProvenanceFacts& provenance = *variant.metadata.provenance;
    report_if_dirty(variant, provenance.builder, "/provenance/kernel-builder", "kernel-builder", sink);
    if (provenance.kernel) report_if_dirty(variant, *provenance.kernel, "/provenance/kernel", "kernel source", sink);
  }

 private:
  static void report_if_dirty(const VariantFacts& variant, const ProvenanceGitState& state, const std::string& pointer,
                              const std::string& what, FindingSink& sink) {
    if (!state.dirty.value_or(false)) return;
    sink.report(metadata_place(variant, pointer + "/dirty"),
                "the " + what + " checkout" + (state.commit ? " at " + *state.commit : std::string()) +
                    " had uncommitted changes (dirty: true): the build cannot be reproduced from the commit");
  }

  RuleInfo info_{"KM008",
                 "provenance says the kernel or the builder was dirty",
                 Severity::warning,
                 R"(`provenance` in metadata.json records the git commits of the kernel source
and of kernel-builder, and whether either checkout had uncommitted changes
(`dirty`). A dirty build cannot be reproduced from the recorded commit, and
the loader warns about it when loading.

Fix: commit your changes (Nix builds also count untracked files) and rebuild
from the clean checkout.
)",
                 R"ex("provenance": {"kernel-builder": {"version": "0.18.1"},
               "kernel": {"commit": "<40 hex digits>", "dirty": true}})ex",
                 R"ex(git commit -am "..." && kcheck build .     # rebuild from a clean checkout
"kernel": {"commit": "<40 hex digits>", "dirty": false})ex"};
};

}  // namespace

std::unique_ptr<Rule> make_km008_provenance_dirty() { return std::make_unique<ProvenanceDirty>(); }

}  // namespace kcheck
