#include "checker/harness/rules/harness_rule_support.h"
#include "checker/harness/rules/harness_rule_table.h"

namespace kcheck {
namespace {

class BenchmarkRegression final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!was_run(variant)) continue;
      const HarnessFacts& facts = *variant.harness;
      for (const OpBenchmarkFact& benchmark : facts.benchmarks) {
        if (!benchmark.baseline || benchmark.baseline->median_us <= 0) continue;
        const BaselineTiming& before = *benchmark.baseline;
        const double ratio = benchmark.median_us / before.median_us;
        if (ratio <= 1 + facts.regression_threshold) continue;
        // Slower beyond the noise too: the middle halves of the two runs'
        // samples (median ± IQR/2) do not overlap.
        if (benchmark.median_us - benchmark.spread_us / 2 <= before.median_us + before.spread_us / 2) continue;
        sink.report(op_place(variant, benchmark.op),
                    benchmark.op + " " + benchmark.dtype + " [" + benchmark.shape + "] takes " +
                        short_number(benchmark.median_us) + " us (IQR " + short_number(benchmark.spread_us) + " us), " +
                        short_number(100 * (ratio - 1)) + "% slower than the baseline's " +
                        short_number(before.median_us) + " us (IQR " + short_number(before.spread_us) +
                        " us; threshold " + short_number(100 * facts.regression_threshold) + "%)");
      }
    }
  }

 private:
  RuleInfo info_{"KB002",
                 "An op is slower than in the baseline report",
                 Severity::warning,
                 R"(`kcheck bench --baseline saved.json` compares each op's median time with
the same variant, op, dtype and shape in a JSON report saved by an earlier
`kcheck bench` (`--format json -o saved.json`). An op slower than the
baseline by more than the threshold (`--regression-threshold`, 10% by
default) and beyond the noise of the two runs (the middle halves of their
samples, median ± half the interquartile range, do not overlap) is flagged. Compare runs on the same device: the report records
it.

Fix: find the change that slowed the kernel (bisect with `kcheck bench
--baseline`), or store a new baseline when the slowdown is intended.
)",
                 R"ex(kcheck bench reference/kernels/activation --baseline main.json
# silu_and_mul bfloat16 [16384x16384] takes 310 us, 99% slower than the baseline's 155.5 us)ex",
                 R"ex(# the kernel fixed (or the baseline renewed on purpose)
kcheck bench reference/kernels/activation --format json -o main.json)ex",
                 0,
                 RuleNeeds::kernel_bench,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_kb002_benchmark_regression() { return std::make_unique<BenchmarkRegression>(); }

}  // namespace kcheck
