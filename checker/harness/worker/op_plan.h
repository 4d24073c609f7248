// What the parent asks a kcheck_worker to do with a loaded module: which ops
// to check against which reference, on which concrete inputs, and whether to
// time them. Written by the parent (checker/harness/op_spec.cpp) as JSON;
// every shape is already concrete here.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kcheck::worker {

struct ArgPlan {
  std::string name;
  bool is_tensor = false;
  bool output = false;
  std::vector<std::int64_t> shape;  // tensors
  double low = -1, high = 1;        // input tensors: uniform in [low, high)
  double value = 0;                 // scalars (float arguments)
};

struct CasePlan {
  std::string size;   // "small", "medium", "large"
  std::string shape;  // label: the first input tensor's shape, "16384x16384"
  std::vector<ArgPlan> args;
};

struct Tolerance {
  double rtol = 0, atol = 0;
};

struct OpPlan {
  std::string name;       // without namespace
  std::string schema;     // the expected schema, without namespace
  std::string reference;  // in reference/ops/reference_ops.cpp
  std::string baseline;   // the same file's baselines; "" = none declared
  std::vector<std::string> dtypes;
  std::map<std::string, Tolerance> tolerance;  // by dtype
  std::vector<CasePlan> cases;
  std::vector<std::string> bytes_args;  // tensors each read or written once per call
};

struct BenchSettings {
  bool enabled = false;
  int samples = 30;                   // timed samples per case
  double target_sample_seconds = 2e-3;
};

struct WorkerPlan {
  std::string backend = "cpu";
  std::uint64_t seed = 0;
  std::vector<OpPlan> ops;
  BenchSettings bench;
};

// Throws nlohmann::json::exception on a malformed plan.
WorkerPlan worker_plan_from_json(const nlohmann::json& json);

}  // namespace kcheck::worker
