#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checker/kinds/process_end.h"
#include "checker/core/report.h"

namespace kcheck {

// How one worker process ended (decoded by run_bounded).
using WorkerEnd = ProcessEnd;

// An operator the dispatcher holds after the load, with its namespace.
struct DispatcherOp {
  std::string name;  // "ns::op" or "ns::op.overload"
  std::string op_namespace;
};

// One op checked against its reference on one input (KD002, KD003).
struct OpCheckFact {
  std::string dtype;
  std::string size;   // "small", "medium", "large"
  std::string shape;  // "16384x16384"
  double max_abs_error = 0;
  double relative_error = 0;  // -1 when not finite
  double rtol = 0, atol = 0;
  bool passed = false;
  std::string problem;  // raised, unwritten elements, guard bytes changed
  bool guard_violation = false;
  std::string device_error;       // a sticky device (CUDA) error after the call
  bool unsupported = false;       // refused the dtype cleanly before writing anything (KD009); `problem` says how
  std::string reference_problem;  // no expected outputs for this case: kcheck's gap, not the kernel's (KD007)
};

// One op of the module's own namespace as the worker found and ran it.
struct OpRunFact {
  std::string op;                          // "ns::op"
  std::string schema;                      // as registered
  std::vector<std::string> dispatch_keys;  // with a kernel
  std::string reference;                   // the spec's reference, as written
  bool has_kernel = true;                  // for the variant's backend (KD004 when not)
  std::string spec;                        // the op spec used; "" = smoke call only
  std::string schema_problem;              // the registered schema differs from the spec's
  bool smoke_called = false;
  std::string smoke_error;
  std::vector<OpCheckFact> checks;
};

// One op timed on one input, with the reference on the same input (KB001).
// An op's timing in the report given with --baseline (KB002).
struct BaselineTiming {
  double median_us = 0;
  double spread_us = 0;  // interquartile range
};

struct OpBenchmarkFact {
  std::string op;
  std::string dtype;
  std::string size;
  std::string shape;
  double median_us = 0;
  double spread_us = 0;
  int samples = 0;
  double bytes = 0;
  // The op spec's baseline: the best eager Torch form, timed beside the op.
  std::string eager;  // its expression; "" when there is none (eager_problem says why)
  std::string eager_problem;
  double eager_median_us = 0;
  double eager_spread_us = 0;
  int buffer_sets = 1;  // the input sets the timing rotated through (the compiled baseline uses as many)
  // The output blocks the op's and the eager form's calls wrote in turn (the
  // compiled baseline's results rotate through as many): 1 unless the outputs
  // exceed twice the last-level cache where the device's memory allows
  // (checker/harness/worker/timing_layout.h).
  int output_placements = 1;
  // The baseline through torch.compile, per mode (compiled_baselines.h), or why not.
  std::vector<CompiledBaseline> compiled;
  std::string compiled_problem;
  double eager_python_median_us = 0;       // the helper's own timing of the eager form (report.h says why)
  std::optional<BaselineTiming> baseline;  // from --baseline (KB002)

  double achieved_gbs() const { return median_us > 0 ? bytes / median_us / 1e3 : 0; }
  double percent_of(double peak_gbs) const { return peak_gbs > 0 ? 100 * achieved_gbs() / peak_gbs : 0; }
  // Over the eager Torch baseline; 0 without one.
  double speedup() const { return median_us > 0 ? eager_median_us / median_us : 0; }
  // Over the fastest torch.compile mode; 0 when none was timed.
  double compile_speedup() const {
    const CompiledBaseline* fastest = fastest_timed(compiled);
    return fastest && median_us > 0 ? fastest->median_us / median_us : 0;
  }
};

// The Python import of the variant package, as the Hub loader does it (KD006).
struct PythonImportFact {
  std::string python;  // the interpreter used
  std::string skipped_because;
  bool imported = false;
  std::string error;  // last line of the traceback
};

// One test of the kernel's own suite, as pytest reported it.
struct TestCaseFact {
  std::string id;       // pytest's node id
  std::string outcome;  // passed, failed, error, skipped, xfailed, xpassed
  std::string message;
  double seconds = 0;
};

// The kernel's own test suite run against one variant (KD008).
struct TestSuiteFact {
  std::string directory;     // the tests' folder, as reported
  std::string cannot_start;  // the suite did not start (no pytest, a collection error): why
  std::vector<TestCaseFact> cases;
  std::vector<std::string> ops_called;  // the variant's ops the tests called ("ns::op")
};

// What `kcheck run` observed for one variant. Absent unless `kcheck run`
// ran: the KD and KO006 rules stay silent without it.
struct HarnessFacts {
  // Set when the variant was not run here (KD005): what would be needed.
  std::string skipped_because;
  std::string own_namespace;         // the variant's id: its ops' namespace
  std::string module_relative_path;  // the native module loaded; "__init__.py" for a Python-only variant
  // A Python-only variant: the load is the import of its package through
  // Python (python_loader.py), `worker` is that process, and no op was run.
  bool python_only = false;
  // The Torch it ran against: the Python given, its Torch version and the
  // worker's key (worker_build.h); empty when it did not run.
  std::string python;
  std::string torch_version;
  std::string worker_key;
  WorkerEnd worker;
  bool load_started = false;     // the worker reached dlopen
  bool loaded = false;           // dlopen returned and the audit finished
  std::string load_error;        // dlerror() when dlopen failed
  std::string harness_problem;   // result unreadable, worker missing, ...
  std::string ops_spec_problem;  // why the repository's kcheck-ops.toml was not used; "" when it was (or is absent)
  std::vector<DispatcherOp> new_ops;
  std::vector<DispatcherOp> changed_ops;   // existing ops whose registrations changed
  std::vector<std::string> new_fallbacks;  // dispatch keys that gained a fallback

  // Ops (when the run had a plan): checks, timings, the device.
  bool ops_planned = false;
  bool ops_finished = false;  // the worker reached the end of its plan
  std::string running;        // the call the worker was in when it ended early
  std::string run_problem;    // the plan could not run (backend missing, ...)
  std::vector<OpRunFact> ops;
  std::vector<OpBenchmarkFact> benchmarks;
  std::string device_name;
  std::string device_backend;
  double copy_bandwidth_gbs = 0;
  double matmul_tflops = 0;            // the measured matrix-multiply rate (0: not measured)
  std::string matmul_dtype;            // of that measurement: bfloat16 on a GPU, float32 on the CPU
  double regression_threshold = 0.10;  // KB002: slower than baseline by more than this
  std::uint64_t seed = 0;

  std::optional<PythonImportFact> python_import;

  // `kcheck run --tests`: the kernel's own tests against this variant.
  std::optional<TestSuiteFact> tests;
};

}  // namespace kcheck
