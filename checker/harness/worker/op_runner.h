// Runs the ops a module registered: each op with a plan is checked against
// its reference on fresh random inputs (outputs poisoned, guard regions
// around them) and, when asked, timed together with its reference; ops
// without a plan get a schema-only smoke call. Linked into kcheck_worker.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "checker/harness/worker_protocol.h"
#include "checker/harness/worker/worker_device.h"

namespace kcheck::worker {

// Called before each op call with what is about to run ("silu_and_mul
// float16 7x258"), so a crash or hang can be pinned on it.
using StageCallback = std::function<void(const std::string& running)>;

struct OpsRun {
  std::vector<OpResult> ops;
  std::vector<CaseTiming> benchmarks;
};

// `op_names`: the module's new ops in its own namespace ("ns::op");
// `work_dir`: a writable directory for the Python references' exchange files.
OpsRun run_ops(const std::vector<std::string>& op_names, const WorkerPlan& plan, const WorkerDevice& device,
               const StageCallback& stage, const std::string& work_dir);

// The device's measured device-to-device copy bandwidth and matrix-multiply rate.
DeviceLimits measure_device_limits(const WorkerDevice& device, const BenchSettings& settings);

}  // namespace kcheck::worker
