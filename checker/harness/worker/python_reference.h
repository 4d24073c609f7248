// Python references (reference/ops/README.md): an op spec whose reference is
// a Torch expression or a function of the repository gets its expected
// outputs from kcheck's helper checker/harness/reference_runner.py, started
// by the worker inside the worker's own containment. The worker hands it the
// very input tensors the kernel gets (raw bytes, bit-identical, in float64 or
// the case's dtype) and reads back one float64 tensor per output. Linked into
// kcheck_worker.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "checker/harness/worker_protocol.h"

namespace kcheck::worker {

// The reference's outputs for one case, or why there are none.
struct ReferenceOutputs {
  std::vector<at::Tensor> outputs;  // float64, on the CPU
  std::string problem;
};

// The cases of one op for one run of the helper: each case's inputs are
// written as they are added (so no more than one case is held in memory),
// then run() starts the helper once for all of them.
class PythonReferenceBatch {
 public:
  // `work_dir` is created now and removed with the batch.
  PythonReferenceBatch(const OpPlan& op, const PythonReferenceSettings& settings, std::string device,
                       std::string work_dir);
  ~PythonReferenceBatch();
  PythonReferenceBatch(const PythonReferenceBatch&) = delete;
  PythonReferenceBatch& operator=(const PythonReferenceBatch&) = delete;

  // One case: its arguments in schema order and their values (the kernel's
  // own inputs; outputs are left out of the reference's call).
  void add(const std::string& id, const std::vector<ArgPlan>& args, const std::vector<c10::IValue>& values);
  // Every added case's outputs; the helper's whole failure is each case's problem.
  std::map<std::string, ReferenceOutputs> run();

 private:
  std::map<std::string, ReferenceOutputs> every_case(const std::string& problem) const;

  const OpPlan& op_;
  const PythonReferenceSettings& settings_;
  nlohmann::json manifest_;
  std::vector<std::string> ids_;
  std::string work_dir_;
  std::string problem_;  // set when a case's inputs could not be written
};

}  // namespace kcheck::worker
