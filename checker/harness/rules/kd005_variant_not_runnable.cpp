#include "checker/harness/rules/harness_rule_support.h"
#include "checker/harness/rules/harness_rule_table.h"

namespace kcheck {
namespace {

class VariantNotRunnable final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!variant.harness) continue;
      const HarnessFacts& facts = *variant.harness;
      if (!facts.skipped_because.empty())
        sink.report(harness_place(variant), "not run here: " + facts.skipped_because);
      else if (!facts.harness_problem.empty())
        sink.report(harness_place(variant), "not judged: " + facts.harness_problem);
      else if (!facts.run_problem.empty())
        sink.report(harness_place(variant), "loaded, but its ops were not run here: " + facts.run_problem);
    }
  }

 private:
  RuleInfo info_{"KD005",
                 "Variant not run: no matching Torch or device here",
                 Severity::note,
                 R"(`kcheck run` loads a variant only where that is meaningful: the local
libtorch (the one kcheck_worker was built against) must have the variant's
Torch major.minor version and C++ ABI, and its backend must be present (CPU
always). Other variants are skipped with this note, which says what would
be needed; the text summary lists them whatever the severity shown. When
no variant of the build could be run, `kcheck run` exits with status 2 and
the reasons on standard error: nothing was checked, so nothing passes.

Fix: nothing in the kernel; run `kcheck run` on a machine (or with a venv)
that has the Torch version and device named in the note.
)",
                 R"ex(# a note: torch212-cxx11-cu130-x86_64-linux on a host with Torch 2.11 and no GPU
kcheck run reference/kernels/relu)ex",
                 R"ex(# on a host (or venv) with Torch 2.12 and a CUDA GPU
kcheck run reference/kernels/relu)ex",
                 0,
                 RuleNeeds::kernel_run,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_kd005_variant_not_runnable() { return std::make_unique<VariantNotRunnable>(); }

}  // namespace kcheck
