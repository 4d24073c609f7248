// Times a call on the device by the device's own clock: warm-up, then
// `samples` samples, each a batch of calls that cycles through rotating buffer
// sets so repeated calls do not measure the cache. Linked into kcheck_worker,
// which users build on first use with only Torch and a compiler, so it needs
// no timing library.
#pragma once
#include <functional>

#include "checker/harness/worker_protocol.h"
#include "checker/harness/worker/worker_device.h"

namespace kcheck::worker {

struct TimingStats {
  double median_seconds = 0;  // per call
  double spread_seconds = 0;  // interquartile range, per call
  int samples = 0;
  int calls_per_sample = 0;
};

// `call(i)` runs the i-th call on buffer set i % rotation.
TimingStats time_on_device(const WorkerDevice& device, const std::function<void(int)>& call, int rotation,
                           const BenchSettings& settings);

}  // namespace kcheck::worker
