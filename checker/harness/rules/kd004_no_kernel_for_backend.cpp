#include "checker/harness/rules/harness_rule_support.h"
#include "checker/harness/rules/harness_rule_table.h"

namespace kcheck {
namespace {

class NoKernelForBackend final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!was_run(variant)) continue;
      const HarnessFacts& facts = *variant.harness;
      for (const OpRunFact& op : facts.ops)
        if (!op.has_kernel)
          sink.report(op_place(variant, op.op),
                      op.op + " is declared but has no kernel for the " +
                          (facts.device_backend.empty() ? std::string("variant's") : facts.device_backend) +
                          " backend (nor a composite one)");
    }
  }

 private:
  RuleInfo info_{"KD004",
                 "An op is declared but has no implementation for the variant's backend",
                 Severity::warning,
                 R"(After loading, `kcheck run` asks the Torch dispatcher whether each op the
module declared (TORCH_LIBRARY `def`) has a kernel for the variant's
backend (CPU for a cpu variant, CUDA for a cuda one) or a composite kernel.
An op without one raises "could not run ... with arguments from the CUDA
backend" at the first call.

Fix: register the implementation for the variant's backend
(`ops.impl("op", torch::kCUDA, &op_cuda)`), or do not declare the op in
that variant.
)",
                 R"ex(TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("silu(Tensor! out, Tensor input) -> ()");   // no ops.impl for CUDA
})ex",
                 R"ex(TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("silu(Tensor! out, Tensor input) -> ()");
  ops.impl("silu", torch::kCUDA, &silu);
})ex",
                 0,
                 RuleNeeds::kernel_run,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_kd004_no_kernel_for_backend() { return std::make_unique<NoKernelForBackend>(); }

}  // namespace kcheck
