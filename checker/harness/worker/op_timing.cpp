#include "checker/harness/worker/op_timing.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace kcheck::worker {
namespace {

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  double position = q * static_cast<double>(values.size() - 1);
  auto below = static_cast<std::size_t>(std::floor(position));
  auto above = std::min(below + 1, values.size() - 1);
  double fraction = position - static_cast<double>(below);
  return values[below] * (1 - fraction) + values[above] * fraction;
}

}  // namespace

TimingStats time_on_device(const WorkerDevice& device, const std::function<void(int)>& call, int rotation,
                           const BenchSettings& settings) {
  rotation = std::max(rotation, 1);
  DeviceTimer timer(device);
  int next = 0;
  // Warm-up: every buffer set once, then an estimate of one call.
  for (int i = 0; i < rotation; ++i) call(next++);
  device.synchronize();
  timer.start();
  for (int i = 0; i < rotation; ++i) call(next++);
  double estimate = std::max(timer.stop_seconds() / rotation, 1e-9);
  int batch = static_cast<int>(std::clamp(std::ceil(settings.target_sample_seconds / estimate), 1.0, 10000.0));
  // Whole rounds over the buffer sets: each sample weighs every set (and
  // every output block, timing_layout.h) alike.
  batch = (batch + rotation - 1) / rotation * rotation;

  std::vector<double> per_call;
  const int samples = std::max(settings.samples, 1);
  per_call.reserve(samples);
  for (int sample = 0; sample < samples; ++sample) {
    timer.start();
    for (int i = 0; i < batch; ++i) call(next++);
    per_call.push_back(timer.stop_seconds() / batch);
  }

  TimingStats stats;
  stats.samples = static_cast<int>(per_call.size());
  stats.calls_per_sample = batch;
  if (!per_call.empty()) {
    stats.median_seconds = quantile(per_call, 0.5);
    stats.spread_seconds = quantile(per_call, 0.75) - quantile(per_call, 0.25);
  }
  return stats;
}

}  // namespace kcheck::worker
