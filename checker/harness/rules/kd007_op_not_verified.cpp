#include "checker/harness/rules/harness_rule_support.h"
#include "checker/harness/rules/harness_rule_table.h"
#include "checker/core/policy.h"
#include "checker/harness/rules/op_verification.h"

namespace kcheck {
namespace {

class OpNotVerified final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const Severity severity = context.policy.require_verified_ops ? Severity::error : Severity::warning;
    for (const VariantFacts& variant : context.tree.variants)
      if (was_run(variant) && !variant.harness->ops_spec_problem.empty()) {
        sink.report(Severity::error, harness_place(variant),
                    "the repository's kcheck-ops.toml was not used: " + variant.harness->ops_spec_problem +
                        "; its ops were checked against kcheck's built-in specs only");
        break;  // one file, said once
      }
    for (const VariantFacts& variant : context.tree.variants) {
      if (!was_run(variant)) continue;
      for (const OpVerification& op : op_verifications(variant))
        if (!op.verified && op.reported_as.empty())
          sink.report(severity, op_place(variant, op.op), op.op + " was not verified: " + op.why);
    }
  }

 private:
  RuleInfo info_{"KD007",
                 "An op the variant registers was not verified",
                 Severity::warning,
                 R"(`kcheck run` lists every op a variant registers and says how each was
verified: checked against a reference (a built-in op spec whose schema fits,
or the repository's own kcheck-ops.toml, whose reference may be a Torch
expression or a Python function of the repository), or called by the
kernel's own tests (`kcheck run --tests`). An op with neither was at most
called once on made-up inputs, which shows it does not crash, not that it is
right: this finding names it and says why it was not verified. An op that
crashed (KD003) or has no kernel for the backend (KD004) is reported by
those rules alone. The summary line counts `N ops registered, M verified`,
and while an op is unverified the verdict is UNVERIFIED, never PASS.

A warning by default; an error under a policy with
`[harness] require-verified-ops = true`, or with `--require-verified`. A
kcheck-ops.toml kcheck cannot use (a link out of the repository, larger
than 4 MiB, not a valid spec, a `python:` file outside the repository) is
an error: the ops are then checked against the built-in specs only, and
the run goes on.

Fix: give the op a spec in `kcheck-ops.toml` at the repository's root, with
a reference (reference/ops/README.md), or run the kernel's tests with
`kcheck run --tests`.
)",
                 R"ex(# kcheck-ops.toml: no entry for the op `scale`
)ex",
                 R"ex(# kcheck-ops.toml
[[op]]
name = "scale"
schema = "scale(Tensor! out, Tensor x, float factor) -> ()"
reference = "x * factor"
dtypes = ["float32"]
sizes = { small = { n = 7 } }
tolerance = { float32 = { rtol = 1e-6, atol = 1e-6 } }
args = [
  { name = "out", output = true, shape = ["n"] },
  { name = "x", shape = ["n"] },
  { name = "factor", value = 2.0 },
])ex",
                 0,
                 RuleNeeds::kernel_run};
};

}  // namespace

std::unique_ptr<Rule> make_kd007_op_not_verified() { return std::make_unique<OpNotVerified>(); }

}  // namespace kcheck
