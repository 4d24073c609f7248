// The protocol between kcheck (checker/harness/) and kcheck_worker
// (cli/kcheck_worker.cpp, checker/harness/worker/): one typed schema that
// both ends compile, so a field one side writes and the other never reads,
// or a key spelled two ways, cannot exist. Three messages, all JSON:
//
//   WorkerPlan    kcheck -> worker, the --plan file: which ops to check
//                 against which reference on which concrete inputs, and
//                 whether to time them (every shape is concrete here)
//   WorkerInfo    worker -> kcheck, `kcheck_worker --info` on stdout
//   WorkerResult  worker -> kcheck, the --result file, rewritten at every
//                 stage: "loading" before dlopen, "load_failed", "loaded"
//                 once the dispatcher was compared, "running" with the call
//                 about to happen, "done" with every check and timing. A
//                 parent that finds "loading" or "running" knows the worker
//                 ended there.
//
// Decoding (`get<T>()`) leaves a missing key at its default and throws
// nlohmann::json::exception on a key of the wrong type: the result file is
// written by a process that runs the kernel's code, so kcheck treats a file
// that breaks the schema as the harness's problem, never as facts.
// Needs nlohmann/json only (no Torch).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kcheck::worker {

// ---- kcheck -> worker: the plan ----

struct ArgPlan {
  std::string name;
  bool is_tensor = false;  // on the wire: a tensor has "shape", a scalar "value"
  bool output = false;
  std::vector<std::int64_t> shape;  // tensors
  double low = -1, high = 1;        // input tensors: uniform in [low, high)
  double value = 0;                 // scalars (float arguments)
  bool integer = false;             // an int scalar (`value` holds it): on the wire "int" instead of "value"
};

struct CasePlan {
  std::string size;   // "small", "medium", "large"
  std::string shape;  // label: the first input tensor's shape, "16384x16384"
  std::vector<ArgPlan> args;
};

struct Tolerance {
  double rtol = 0, atol = 0;
};

// What an op's outputs are compared with (reference/ops/README.md):
//   builtin      a function of reference/ops/reference_ops.cpp, by name
//   expression   a Torch expression over the spec's argument names, evaluated
//                by kcheck's own helper (checker/harness/reference_runner.py)
//   python       FILE:FUNCTION, a function of the repository, imported by that
//                helper inside the worker's containment
enum class ReferenceKind { builtin, expression, python };

struct OpPlan {
  std::string name;       // without namespace
  std::string schema;     // the expected schema, without namespace
  std::string reference;  // builtin: its name; expression: the text; python: "FILE:FUNCTION"
  ReferenceKind reference_kind = ReferenceKind::builtin;
  std::string reference_dtype = "float64";  // python and expression: "float64" or "native" (the case's dtype)
  std::string baseline;                     // the same file's baselines; "" = none declared
  std::vector<std::string> dtypes;
  std::map<std::string, Tolerance> tolerance;  // by dtype
  std::vector<CasePlan> cases;
  std::vector<std::string> bytes_args;  // tensors each read or written once per call
};

struct BenchSettings {
  bool enabled = false;
  int samples = 30;  // timed samples per case
  double target_sample_seconds = 2e-3;
};

// How the worker computes Python references (python and expression kinds):
// it starts `python helper MANIFEST` inside its own containment.
struct PythonReferenceSettings {
  std::string python;      // the interpreter; "" = none given (those ops are not verified, and say why)
  std::string helper;      // kcheck's reference_runner.py
  std::string repository;  // where python: FILE paths are relative to
};

struct WorkerPlan {
  std::string backend = "cpu";
  std::uint64_t seed = 0;
  std::vector<OpPlan> ops;
  BenchSettings bench;
  PythonReferenceSettings python_references;
};

// ---- worker -> kcheck: --info ----

struct WorkerInfo {
  std::string torch_version;  // "2.11.0"
  bool cxx11_abi = true;
  std::vector<std::string> backends;  // "cpu", plus "cuda" when a GPU is visible
};

// ---- worker -> kcheck: the result file ----

enum class WorkerStage { unknown, loading, load_failed, loaded, running, done };

struct RegisteredOp {
  std::string name;          // "ns::op" or "ns::op.overload"
  std::string op_namespace;  // "ns"
};

struct SmokeCall {
  bool called = false;
  std::string error;
};

struct CaseCheck {
  std::string dtype, size, shape;
  double max_abs_error = 0, relative_error = 0;  // -1 when not finite
  double rtol = 0, atol = 0;
  bool passed = false;
  std::string problem;  // the op raised, wrote outside its output, left elements unwritten, ...
  bool guard_violation = false;
  std::string device_error;  // the device is unusable after this case (a sticky CUDA error)
  // The op refused the dtype with a clean error before writing any output
  // (`problem` holds its message): unsupported, not wrong (KD009).
  bool unsupported = false;
  // The reference could not give this case's expected outputs (a Python
  // reference that raised, no Python): kcheck's gap, not the kernel's fault.
  std::string reference_problem;
};

struct OpResult {
  std::string op;                          // "ns::op"
  std::string schema;                      // as registered
  std::vector<std::string> dispatch_keys;  // those with a kernel: "CPU", "CUDA", "CompositeImplicitAutograd", ...
  bool has_kernel = true;
  std::string spec;  // the op spec checked against; "" when none
  std::string schema_problem;
  std::optional<SmokeCall> smoke;  // ops without a usable spec get a schema-only call
  std::vector<CaseCheck> checks;
};

struct CaseTiming {
  std::string op;  // without namespace
  std::string dtype, size, shape;
  double median_us = 0, spread_us = 0;
  int samples = 0;
  int buffer_sets = 1;
  int output_placements = 1;  // output blocks the op and the eager form wrote in turn (worker/timing_layout.h)
  std::int64_t bytes = 0;
  std::string eager;  // the baseline's expression, when timed
  std::string eager_problem;
  double eager_median_us = 0, eager_spread_us = 0;
};

struct DeviceLimits {
  std::string name, backend;
  double copy_bandwidth_gbs = 0;  // 0 when not measured (no --bench)
  double matmul_tflops = 0;
  std::string matmul_dtype;
};

struct WorkerResult {
  WorkerStage stage = WorkerStage::unknown;
  std::string load_error;         // load_failed: dlerror()
  std::string libpython_problem;  // why libpython could not be made global, which may explain load_error
  std::vector<RegisteredOp> new_ops, changed_ops;
  std::vector<std::string> new_fallbacks;  // dispatch keys
  std::string running;                     // running: the call about to happen
  std::string run_problem;                 // done: why no op ran (the device could not be opened)
  std::optional<DeviceLimits> device;
  std::vector<OpResult> ops;
  std::vector<CaseTiming> benchmarks;
};

void to_json(nlohmann::json& json, const ArgPlan& value);
void from_json(const nlohmann::json& json, ArgPlan& value);
void to_json(nlohmann::json& json, const CasePlan& value);
void from_json(const nlohmann::json& json, CasePlan& value);
void to_json(nlohmann::json& json, const Tolerance& value);
void from_json(const nlohmann::json& json, Tolerance& value);
void to_json(nlohmann::json& json, const OpPlan& value);
void from_json(const nlohmann::json& json, OpPlan& value);
void to_json(nlohmann::json& json, const BenchSettings& value);
void from_json(const nlohmann::json& json, BenchSettings& value);
void to_json(nlohmann::json& json, const ReferenceKind& value);
void from_json(const nlohmann::json& json, ReferenceKind& value);
void to_json(nlohmann::json& json, const PythonReferenceSettings& value);
void from_json(const nlohmann::json& json, PythonReferenceSettings& value);
void to_json(nlohmann::json& json, const WorkerPlan& value);
void from_json(const nlohmann::json& json, WorkerPlan& value);
void to_json(nlohmann::json& json, const WorkerInfo& value);
void from_json(const nlohmann::json& json, WorkerInfo& value);
void to_json(nlohmann::json& json, const WorkerStage& value);
void from_json(const nlohmann::json& json, WorkerStage& value);
void to_json(nlohmann::json& json, const RegisteredOp& value);
void from_json(const nlohmann::json& json, RegisteredOp& value);
void to_json(nlohmann::json& json, const SmokeCall& value);
void from_json(const nlohmann::json& json, SmokeCall& value);
void to_json(nlohmann::json& json, const CaseCheck& value);
void from_json(const nlohmann::json& json, CaseCheck& value);
void to_json(nlohmann::json& json, const OpResult& value);
void from_json(const nlohmann::json& json, OpResult& value);
void to_json(nlohmann::json& json, const CaseTiming& value);
void from_json(const nlohmann::json& json, CaseTiming& value);
void to_json(nlohmann::json& json, const DeviceLimits& value);
void from_json(const nlohmann::json& json, DeviceLimits& value);
void to_json(nlohmann::json& json, const WorkerResult& value);
void from_json(const nlohmann::json& json, WorkerResult& value);

}  // namespace kcheck::worker
