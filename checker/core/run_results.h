#pragma once
#include <cstdint>
#include <string>
#include <vector>

// What `kcheck run` and `kcheck bench` add to a Report (Report::dynamic):
// the device, each op's checks, timings and baselines, the runs, the ops'
// verification and the kernel's own tests. Empty for a static audit.

namespace kcheck {

// What the dynamic harness measured about a device (`kcheck bench`).
struct DeviceLimits {
  std::string variant;            // the variant whose worker measured it
  std::string name;               // "NVIDIA H100 80GB HBM3", "cpu"
  std::string backend;            // "cuda", "cpu"
  double copy_bandwidth_gbs = 0;  // device-to-device copy, read + write bytes / time
  double matmul_tflops = 0;       // 0 = not measured
  std::string matmul_dtype;       // "bfloat16" on a GPU, "float32" on the CPU
};

// One op checked against its reference implementation on one input.
struct OpCheck {
  std::string variant;
  std::string op;
  std::string dtype;
  std::string shape;  // "4096x8192"
  double max_abs_error = 0;
  double relative_error = 0;  // ||out - ref|| / ||ref|| in float64
  bool passed = false;
};

// The op's baseline compiled with torch.compile in one mode, timed the way
// the op is (checker/harness/compile_baselines.py).
struct CompiledBaseline {
  std::string mode;  // "default", "max-autotune-no-cudagraphs"
  double median_us = 0;
  double spread_us = 0;        // interquartile range
  double compile_seconds = 0;  // the first call: tracing, compiling, loading
  std::string problem;         // no timing: compile failed, result differs from eager, time ran out
  // The op itself, timed by the same helper right after this mode, from
  // Python, on the same inputs and into the blocks the compiled calls wrote
  // their results to: the two kernels compared with no difference of process
  // or placement (checker/harness/compile_baselines.py, time_beside).
  double paired_median_us = 0;
  double paired_spread_us = 0;
  std::string paired_problem;  // why the op was not timed beside it (when this mode was timed)
  bool timed() const { return problem.empty() && median_us > 0; }
  bool paired() const { return timed() && paired_problem.empty() && paired_median_us > 0; }
  double paired_speedup() const { return paired() ? median_us / paired_median_us : 0; }
};

// The timed mode with the smallest median; nullptr when none was timed.
const CompiledBaseline* fastest_timed(const std::vector<CompiledBaseline>& compiled);

// One op timed on one input (KB001).
struct BenchmarkResult {
  std::string variant;
  std::string op;
  std::string dtype;
  std::string shape;
  int repetitions = 0;
  double median_us = 0;
  double spread_us = 0;  // interquartile range
  double bytes = 0;      // moved per call, from the op spec
  double achieved_gbs = 0;
  // Of the roofline: the op's bytes at the measured copy bandwidth (the
  // reference ops are memory-bound; the matmul rate is a device figure only).
  double percent_of_peak = 0;
  // The op spec's baseline, what a user would run instead: the best eager
  // Torch form, timed on the same inputs in the same run.
  std::string eager;          // its expression ("F.rms_norm(input, (d,), weight, epsilon)"); "" = none
  std::string eager_problem;  // why there is none
  double eager_median_us = 0;
  double eager_spread_us = 0;  // interquartile range
  double speedup = 0;          // eager_median_us / median_us; 0 without a baseline
  // The same baseline through torch.compile, one entry per mode asked for;
  // none when compiled_problem says why not (no Python, --compile none).
  std::vector<CompiledBaseline> compiled;
  std::string compiled_problem;
  double compile_speedup = 0;  // the fastest timed mode's median / median_us; 0 when none was timed
  // The eager form timed by the torch.compile helper, from Python as the
  // compiled one is (see python_call_bound).
  double eager_python_median_us = 0;
  // The output blocks every timing (the op's, the eager form's, each compiled
  // mode's) rotated its results through: 1, one block reused as Torch's
  // caching allocator hands it back, unless the outputs exceed twice the
  // last-level cache where the device's memory allows (4; see
  // checker/harness/worker/timing_layout.h).
  int output_placements = 1;

  // Whether Python's per-call overhead, not the device, likely sets the
  // compiled timing: the eager form takes more than 1.2 times its C++ time
  // when called from Python, or the fastest compiled mode more than 1.2 times
  // the eager form's (a compiled function's guards and wrapper cost more per
  // call than an eager op's dispatch; fused, it is no slower on the device).
  bool python_call_bound() const;
};

// One op a variant registered and how `kcheck run` verified it (KD007).
struct OpVerification {
  std::string variant;
  std::string op;                          // "ns::op"
  std::string schema;                      // as registered
  std::vector<std::string> dispatch_keys;  // with a kernel: "CPU", "CUDA", ...
  // "reference" (checked against a reference), "tests" (the kernel's own
  // tests called it), "smoke" (called once on made-up inputs: not verified),
  // "none" (not called).
  std::string how;
  bool verified = false;
  std::string reference;  // the spec's reference, for "reference"
  int cases_run = 0;      // reference cases the op computed (unsupported dtypes not counted)
  int cases_passed = 0;
  std::vector<std::string> unsupported_dtypes;  // refused cleanly (KD009)
  std::string why;                              // why it is not verified; "" when it is
  std::string reported_as;                      // the finding that already says why (KD003, KD004); "" = KD007 says it
};

// One variant as `kcheck run` met it: run, or not and why.
struct VariantRun {
  std::string variant;
  bool ran = false;    // the worker loaded it and reached the end of its plan
  std::string reason;  // why it did not run (or could not be judged)
  int ops_registered = 0;
  int ops_verified = 0;
  std::string python;  // the Python whose Torch it ran against (--python); "" when not run
  std::string torch;   // that Torch's version, as its worker reports it
  std::string worker;  // the worker's key: "built-with-kcheck" or its cache key (worker_build.h)
};

// One test of the kernel's own suite (`kcheck run --tests`) against a variant.
struct TestOutcome {
  std::string variant;
  std::string test;     // pytest's node id
  std::string outcome;  // "passed", "failed", "error", "skipped", "xfailed", "xpassed"
  std::string message;  // failed/error: the assertion's message; skipped: the reason
  double seconds = 0;
};

// What `kcheck run` / `kcheck bench` measured; empty for a static audit.
struct DynamicResults {
  std::uint64_t seed = 0;
  std::vector<DeviceLimits> devices;
  std::vector<OpCheck> op_checks;
  std::vector<BenchmarkResult> benchmarks;
  std::string containment;          // what confined the kernel's code (ContainmentInForce::describe), "" if unknown
  std::vector<VariantRun> runs;     // every variant with a native module, and every Python-only one
  std::vector<OpVerification> ops;  // every op the variants that ran registered
  std::vector<TestOutcome> tests;   // `--tests`

  bool empty() const {
    return devices.empty() && op_checks.empty() && benchmarks.empty() && runs.empty() && ops.empty() && tests.empty();
  }
  int ops_registered() const { return static_cast<int>(ops.size()); }
  int ops_verified() const;
};

}  // namespace kcheck
