#include "checker/harness/rules/harness_rule_support.h"
#include "checker/harness/rules/harness_rule_table.h"

namespace kcheck {
namespace {

// "; on the same buffers 1.01x (the op beside it, from Python: median 208 us, IQR 1 us)", or why not.
std::string paired_part(const CompiledBaseline& mode) {
  if (mode.paired())
    return "; on the same buffers " + short_number(mode.paired_speedup()) +
           "x (the op beside it, from Python: median " + short_number(mode.paired_median_us) + " us, IQR " +
           short_number(mode.paired_spread_us) + " us)";
  return mode.paired_problem.empty() ? std::string() : "; " + mode.paired_problem;
}

// ", 1.1x torch.compile (max-autotune-no-cudagraphs, median 210 us, IQR 1 us)", or why not.
std::string compiled_part(const OpBenchmarkFact& benchmark) {
  if (const CompiledBaseline* fastest = fastest_timed(benchmark.compiled))
    return ", " + short_number(benchmark.compile_speedup()) + "x torch.compile (" + fastest->mode + ", median " +
           short_number(fastest->median_us) + " us, IQR " + short_number(fastest->spread_us) + " us" +
           paired_part(*fastest) + ")";
  std::string why;
  for (const CompiledBaseline& mode : benchmark.compiled)
    why += (why.empty() ? "" : "; ") + mode.mode + ": " + mode.problem;
  if (!why.empty()) return "; torch.compile not timed (" + why + ")";
  return benchmark.compiled_problem.empty() ? std::string() : "; torch.compile " + benchmark.compiled_problem;
}

class BenchmarkResultNote final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!was_run(variant)) continue;
      const HarnessFacts& facts = *variant.harness;
      for (const OpBenchmarkFact& benchmark : facts.benchmarks) {
        const double gbs = benchmark.achieved_gbs();
        std::string message = benchmark.op + " " + benchmark.dtype + " [" + benchmark.shape + "]: median " +
                              short_number(benchmark.median_us) + " us (IQR " + short_number(benchmark.spread_us) +
                              " us, " + std::to_string(benchmark.samples) + " samples), " + short_number(gbs) + " GB/s";
        if (facts.copy_bandwidth_gbs > 0)
          message += ", " + short_number(benchmark.percent_of(facts.copy_bandwidth_gbs)) +
                     "% of the measured copy bandwidth (" + short_number(facts.copy_bandwidth_gbs) + " GB/s)";
        if (benchmark.eager_median_us > 0 && benchmark.median_us > 0)
          message += ", " + short_number(benchmark.speedup()) + "x Torch eager " + benchmark.eager + " (median " +
                     short_number(benchmark.eager_median_us) + " us, IQR " + short_number(benchmark.eager_spread_us) +
                     " us)";
        else
          message += "; no Torch baseline timed: " + benchmark.eager_problem;
        message += compiled_part(benchmark);
        sink.report(op_place(variant, benchmark.op), message);
      }
    }
  }

 private:
  RuleInfo info_{"KB001",
                 "Benchmark result of an op",
                 Severity::note,
                 R"(`kcheck bench` times every op that passed its correctness check, per size
and dtype: Google Benchmark runs the samples with the device's own clock
(CUDA events on the op's stream, or the steady clock on the CPU), after a
warm-up, cycling through enough input buffers that consecutive calls do not
hit the cache. Each note gives the median time per call and its
interquartile range, the achieved bandwidth from the spec's bytes per call,
the percentage of the device-to-device copy bandwidth measured in the same
run, and the speed-up over what a user would run instead: the op spec's
baseline, the best eager Torch form of the op (the fused Torch op where one
exists, such as F.rms_norm, else the plain composite), timed on the same
inputs in the same run, with its own median and interquartile range; and
the speed-up over that same expression compiled with torch.compile (each
mode of --compile, by default Inductor's default and
max-autotune-no-cudagraphs, through the --python interpreter), timed the
same way on inputs of the same shapes, the fastest mode counting. Right
after each mode the same process times the op itself, called from Python
as the compiled form is, on the same inputs and into the very blocks the
compiled calls wrote their results to (where they wrote the same ones each
round: Torch's caching allocator on a GPU hands each call the block the
last one freed; otherwise the note says it was not timed beside it): "on
the same buffers" compares the two kernels with nothing else different
(where an output lies alone moved one memory-bound kernel by up to 0.9 %
on an H200). Outputs larger than twice the last-level cache are four
blocks, written in turn by every timing (the report's output_placements),
so that no one placement sets a row. A
compile that fails, gives a different result or does not finish in
--compile-timeout is said so in the note and the report. A speed-up below
1 says the kernel is slower than Torch. A note, not a failure; KB002
compares with an earlier report.

Fix: nothing required; a memory-bound op far below the copy bandwidth has
room to improve (vectorised 16-byte accesses, enough work in flight).
)",
                 R"ex(# a memory-bound op at 30% of the copy bandwidth: scalar loads
out[i] = silu(x[i]) * x[d + i];        // one 2-byte load per thread)ex",
                 R"ex(# 16-byte vector loads and stores, several per thread in flight
uint4 gate = gate_vectors[i]; uint4 value = value_vectors[i];)ex",
                 0,
                 RuleNeeds::kernel_bench,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_kb001_benchmark_result() { return std::make_unique<BenchmarkResultNote>(); }

}  // namespace kcheck
