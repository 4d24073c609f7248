// The benchmark rules judged on small harness facts, no worker run: KB001's
// note (time, bandwidth, % of the copy bandwidth, Torch eager baseline) and
// KB002's regression rule (beyond the threshold and beyond the two runs' noise).
// KB001's torch.compile part is tested in compiled_baselines_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checker/audit/audit.h"
#include "checker/core/policy.h"
#include "checker/facts/tree_facts.h"
#include "checker/kinds/harness_facts.h"

namespace kcheck {
namespace {

const char* const kOp = "activation_0a1b2c3::silu_and_mul";

OpBenchmarkFact timed(double median_us, double spread_us) {
  OpBenchmarkFact benchmark;
  benchmark.op = kOp;
  benchmark.dtype = "bfloat16";
  benchmark.size = "large";
  benchmark.shape = "16384x16384";
  benchmark.median_us = median_us;
  benchmark.spread_us = spread_us;
  benchmark.samples = 100;
  return benchmark;
}

// The findings of one rule on one run variant holding these facts.
std::vector<Finding> findings_of(const std::string& code, const HarnessFacts& harness) {
  TreeFacts tree;
  VariantFacts variant;
  variant.directory_name = "torch211-cxx11-cu130-x86_64-linux";
  variant.harness = harness;
  variant.harness->worker.started = true;
  variant.harness->module_relative_path = "_activation_cuda_0a1b2c3.abi3.so";
  tree.variants.push_back(variant);
  tree.collected = RuleNeeds::kernel_bench;  // as `kcheck bench` leaves it
  AuditOptions options;
  options.selection.select = {code};
  return judge(tree, load_policy("hub"), options, make_rule_registry()).findings;
}

HarnessFacts with(std::vector<OpBenchmarkFact> benchmarks) {
  HarnessFacts facts;
  facts.benchmarks = std::move(benchmarks);
  return facts;
}

// --- KB001 -----------------------------------------------------------------

// 402653184 bytes in 155.5 us: 2589 GB/s, 89.14% of 2905 GB/s; eager 400.4 us: 2.575x.
OpBenchmarkFact silu_with_eager() {
  OpBenchmarkFact benchmark = timed(155.5, 1.5);
  benchmark.bytes = 402653184;
  benchmark.eager = "F.silu(x[..., :d]) * x[..., d:]";
  benchmark.eager_median_us = 400.4;
  benchmark.eager_spread_us = 8;
  return benchmark;
}

TEST(Kb001, NotesBandwidthPercentOfCopyAndTheEagerSpeedup) {
  HarnessFacts facts = with({silu_with_eager()});
  facts.copy_bandwidth_gbs = 2905;
  const std::vector<Finding> findings = findings_of("KB001", facts);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].code, "KB001");
  EXPECT_EQ(findings[0].severity, Severity::note);
  EXPECT_EQ(findings[0].location.symbol, kOp);
  EXPECT_EQ(findings[0].message,
            std::string(kOp) +
                " bfloat16 [16384x16384]: median 155.5 us (IQR 1.5 us, 100 samples), 2589 GB/s, 89.14% of the "
                "measured copy bandwidth (2905 GB/s), 2.575x Torch eager F.silu(x[..., :d]) * x[..., d:] (median "
                "400.4 us, IQR 8 us)");
}

TEST(Kb001, NoPercentWithoutAMeasuredCopyBandwidth) {
  const std::vector<Finding> findings = findings_of("KB001", with({silu_with_eager()}));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].message.find("100 samples), 2589 GB/s, 2.575x Torch eager"), std::string::npos)
      << findings[0].message;
  EXPECT_EQ(findings[0].message.find("% of the"), std::string::npos) << findings[0].message;
}

TEST(Kb001, SaysWhyThereIsNoEagerBaseline) {
  OpBenchmarkFact benchmark = silu_with_eager();
  benchmark.eager = "";
  benchmark.eager_median_us = 0;
  benchmark.eager_problem = "the op spec names no baseline";
  HarnessFacts facts = with({benchmark});
  facts.copy_bandwidth_gbs = 2905;
  const std::vector<Finding> findings = findings_of("KB001", facts);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_TRUE(findings[0].message.ends_with(
      "89.14% of the measured copy bandwidth (2905 GB/s); no Torch baseline timed: the op spec names no baseline"))
      << findings[0].message;
  EXPECT_EQ(findings[0].message.find("Torch eager"), std::string::npos) << findings[0].message;
}

TEST(Kb001, OneNotePerTimedResultOfARunVariantOnly) {
  HarnessFacts facts = with({silu_with_eager(), timed(10, 1)});
  EXPECT_EQ(findings_of("KB001", facts).size(), 2u);
  facts.skipped_because = "no CUDA device";
  EXPECT_TRUE(findings_of("KB001", facts).empty()) << "a variant not run has no results to note";
}

// --- KB002 -----------------------------------------------------------------

// One result timed now (median, IQR) against the baseline's, threshold 25%.
std::vector<Finding> regressions(double median_us, double spread_us, double before_us, double before_spread_us) {
  OpBenchmarkFact benchmark = timed(median_us, spread_us);
  benchmark.baseline = BaselineTiming{before_us, before_spread_us};
  HarnessFacts facts = with({benchmark});
  facts.regression_threshold = 0.25;
  return findings_of("KB002", facts);
}

TEST(Kb002, BeyondTheThresholdAndTheNoiseIsFlaggedNamingBothIqrs) {
  // 130 us against 100 us: 30% > 25%; 130 - 51/2 = 104.5 > 100 + 8/2 = 104: the middle halves do not overlap.
  const std::vector<Finding> findings = regressions(130, 51, 100, 8);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].code, "KB002");
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_EQ(findings[0].location.symbol, kOp);
  EXPECT_EQ(findings[0].message, std::string(kOp) +
                                     " bfloat16 [16384x16384] takes 130 us (IQR 51 us), 30% slower than the "
                                     "baseline's 100 us (IQR 8 us; threshold 25%)");
}

TEST(Kb002, BeyondTheThresholdButInsideTheNoiseIsNotFlagged) {
  EXPECT_TRUE(regressions(130, 60, 100, 8).empty()) << "130 - 30 = 100 is inside 100 + 4";
  EXPECT_TRUE(regressions(130, 6, 100, 60).empty()) << "the baseline's own noise: 127 against 130";
}

TEST(Kb002, TheNoiseBoundary) {
  // 130 - 52/2 = 104 = 100 + 8/2: the halves touch, which is overlap.
  EXPECT_TRUE(regressions(130, 52, 100, 8).empty());
  EXPECT_EQ(regressions(130, 51, 100, 8).size(), 1u) << "half a microsecond apart";
}

TEST(Kb002, TheThresholdBoundary) {
  EXPECT_TRUE(regressions(120, 0, 100, 0).empty()) << "beyond the noise, inside the threshold";
  EXPECT_TRUE(regressions(125, 0, 100, 0).empty()) << "exactly 25% slower is not more than 25%";
  EXPECT_EQ(regressions(125.5, 0, 100, 0).size(), 1u);
}

TEST(Kb002, FasterOrWithoutABaselineIsNotFlagged) {
  EXPECT_TRUE(regressions(50, 0, 100, 0).empty());
  EXPECT_TRUE(regressions(130, 0, 0, 0).empty()) << "a baseline without a timing";
  EXPECT_TRUE(findings_of("KB002", with({timed(130, 0)})).empty()) << "no --baseline";
}

}  // namespace
}  // namespace kcheck
