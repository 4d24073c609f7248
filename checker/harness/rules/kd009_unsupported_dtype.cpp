#include <map>
#include <set>

#include "checker/harness/rules/harness_rule_support.h"
#include "checker/harness/rules/harness_rule_table.h"

namespace kcheck {
namespace {

class UnsupportedDtype final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  // One finding per op and dtype: the first refusal's message.
  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!was_run(variant)) continue;
      const HarnessFacts& facts = *variant.harness;
      const std::string device = facts.device_backend.empty() ? "this device" : facts.device_backend;
      for (const OpRunFact& op : facts.ops) {
        std::set<std::string> reported;
        for (const OpCheckFact& check : op.checks)
          if (check.unsupported && reported.insert(check.dtype).second)
            sink.report(op_place(variant, op.op),
                        op.op + " does not support " + check.dtype + " on " + device + ": " + check.problem);
      }
    }
  }

 private:
  RuleInfo info_{"KD009",
                 "An op refused a dtype or device with a clean error",
                 Severity::note,
                 R"(An op that raises a Torch error (c10::Error, TORCH_CHECK) before writing
any of its output, for a dtype its spec lists, does not support that dtype
on this device: that is a limit of the kernel, not a wrong result, so it is
this note (naming the dtype and the op's message) instead of KD002. kcheck
tells the two apart by the output: every element still holds its NaN
poison and the guard regions are intact. The op's other dtypes are checked
as usual; an op that refuses every dtype is not verified (KD007).

Fix: nothing, when the kernel is meant to support only those dtypes (say
so in its documentation, or give it a kcheck-ops.toml entry listing the
dtypes it supports); otherwise add the dtype to the kernel.
)",
                 R"ex(TORCH_CHECK(input.scalar_type() == at::kFloat, "relu_kernel only supports float32");)ex",
                 R"ex(# kcheck-ops.toml: the dtypes the kernel supports
dtypes = ["float32"])ex",
                 0,
                 RuleNeeds::kernel_run};
};

}  // namespace

std::unique_ptr<Rule> make_kd009_unsupported_dtype() { return std::make_unique<UnsupportedDtype>(); }

}  // namespace kcheck
