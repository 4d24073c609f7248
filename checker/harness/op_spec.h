// Op specs: for each known op, how to build its inputs, which reference
// implementation it is compared with, per-dtype tolerances and the bytes a
// call moves. The built-in specs are reference/ops/*.toml (embedded); a
// kernel repository may ship its own `kcheck-ops.toml` (same format, see
// reference/ops/README.md), whose ops replace built-in ones of the same name.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/harness/worker_protocol.h"

namespace kcheck {

// A spec file that cannot be used: names the file, line and key.
class OpSpecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OpArgSpec {
  std::string name;
  bool is_tensor = false;
  bool output = false;
  std::vector<std::string> shape;  // dimension expressions: "n", "2*d", "128"
  double low = -1, high = 1;       // input tensors
  double value = 0;                // scalars
  bool integer = false;            // an int scalar (`value = 3` in TOML), else a float one
};

struct OpTolerance {
  double rtol = 0, atol = 0;
};

struct OpSpec {
  std::string name;
  std::string schema;
  std::string reference;  // as written; reference_kind says how it is read
  worker::ReferenceKind reference_kind = worker::ReferenceKind::builtin;
  std::string reference_dtype = "float64";  // Python references: "float64" or "native"
  // What `kcheck bench` times the op against; "" = none. Read like
  // `reference`: a name of reference/ops/baseline_forms.cpp (timed by the
  // worker), or the repository's python:FILE:FUNCTION or Torch expression
  // (timed from Python by compile_baselines.py).
  std::string baseline;
  worker::ReferenceKind baseline_kind = worker::ReferenceKind::builtin;
  std::vector<OpArgSpec> args;
  std::vector<std::string> dtypes;
  std::vector<std::pair<std::string, std::map<std::string, std::int64_t>>> sizes;  // "small" -> {n: 7, d: 129}
  std::map<std::string, OpTolerance> tolerance;
  std::vector<std::string> bytes;  // tensors read or written once per call
  std::string source;              // "embedded:reference/ops/activation.toml"
};

struct OpSpecSet {
  std::vector<OpSpec> ops;
  const OpSpec* find(const std::string& name) const;
  void add(OpSpec spec);  // replaces a spec of the same name
};

OpSpecSet parse_op_specs(std::string_view text, const std::string& source);  // throws OpSpecError
OpSpecSet builtin_op_specs();                                                // throws OpSpecError
// The largest kcheck-ops.toml read (a spec of hundreds of ops is a few hundred KiB).
inline constexpr std::uint64_t kMaxOpSpecBytes = 4u << 20;
// The built-in specs plus `<repository>/kcheck-ops.toml` when present: a
// regular file inside the repository (after links), at most kMaxOpSpecBytes.
OpSpecSet op_specs_for(const std::filesystem::path& repository);

// How `reference` is read (reference/ops/README.md): "python:FILE:FUNCTION"
// names a function of the repository, a bare name one of
// reference/ops/reference_ops.cpp, anything else is a Torch expression.
// Throws OpSpecError naming what is wrong.
worker::ReferenceKind reference_kind_of(const std::string& reference);

// Whether `name` can stand for an argument in a Python reference: an ASCII
// identifier that is no Python keyword and has no leading underscore.
bool is_reference_argument_name(const std::string& name);

// Evaluates "2*d" against a size ({d: 4096} -> 8192); throws OpSpecError.
std::int64_t evaluate_dimension(const std::string& expression, const std::map<std::string, std::int64_t>& size);

// The spec's arguments at `size`, as the worker's plan holds them: tensors
// with concrete shapes (inputs with their value range), float scalars with
// their value.
std::vector<worker::ArgPlan> concrete_args(const OpSpec& spec, const std::map<std::string, std::int64_t>& size);
// The first input tensor's shape at `size`, "16384x16384": how reports name the case.
std::string shape_label(const OpSpec& spec, const std::map<std::string, std::int64_t>& size);

struct RunSettings {
  std::string backend = "cpu";
  std::uint64_t seed = 0;
  std::vector<std::string> sizes;  // which named sizes; empty = all
  bool bench = false;
  int samples = 30;
  double target_sample_seconds = 2e-3;
  worker::PythonReferenceSettings python_references;  // python and expression references
};

// The worker's plan (checker/harness/worker_protocol.h) with concrete shapes.
worker::WorkerPlan worker_plan(const OpSpecSet& specs, const RunSettings& settings);

}  // namespace kcheck
