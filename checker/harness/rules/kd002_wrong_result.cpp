#include "checker/harness/rules/harness_rule_support.h"
#include "checker/harness/rules/harness_rule_table.h"

namespace kcheck {
namespace {

class WrongResult final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!was_run(variant)) continue;
      const HarnessFacts& facts = *variant.harness;
      for (const OpRunFact& op : facts.ops)
        for (const OpCheckFact& check : op.checks) {
          if (check.passed || check.guard_violation || !check.device_error.empty()) continue;  // KD003
          if (check.unsupported || !check.reference_problem.empty()) continue;                 // KD009, KD007
          std::string what =
              op.op + " " + check.dtype + " [" + check.shape + "] (seed " + std::to_string(facts.seed) + "): ";
          if (!check.problem.empty()) {
            sink.report(op_place(variant, op.op), what + check.problem);
            continue;
          }
          sink.report(op_place(variant, op.op),
                      what + "max abs error " + short_number(check.max_abs_error) + ", relative error " +
                          short_number(check.relative_error) +
                          " against the float64 reference; tolerance |out - ref| <= " + short_number(check.atol) +
                          " + " + short_number(check.rtol) + " |ref|");
        }
    }
  }

 private:
  RuleInfo info_{"KD002",
                 "An op's result differs from the reference",
                 Severity::error,
                 R"(`kcheck run` calls each op that has a spec (reference/ops/*.toml, or the
repository's own kcheck-ops.toml) on fresh random inputs of every listed
dtype and size, with its outputs poisoned (NaN) beforehand, and compares
them in float64 with the reference computed from the same inputs (a
built-in one, or the repository's Python reference or Torch expression). The check passes when every element satisfies
|out - ref| <= atol + rtol * |ref| for the dtype's tolerance. The finding
gives the op, dtype, shape, the seed of the inputs (`--seed` reproduces
them), the maximum absolute error and the relative error ||out - ref|| /
||ref||. An op that raises on valid inputs, or leaves output elements
unwritten, is reported here too; one that refuses a dtype with a clean
error before writing anything is KD009 instead.

Fix: reproduce with `kcheck run --seed N`, compare with the reference in
reference/ops/reference_ops.cpp, and fix the kernel (accumulate in float32,
handle the tail of odd sizes, write every element).
)",
                 R"ex(// silu_and_mul: the gate and the value swapped
out[i] = silu(x[d + i]) * x[i];)ex",
                 R"ex(// out = silu(input[..., :d]) * input[..., d:]
out[i] = silu(x[i]) * x[d + i];)ex",
                 0,
                 RuleNeeds::kernel_run,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_kd002_wrong_result() { return std::make_unique<WrongResult>(); }

}  // namespace kcheck
