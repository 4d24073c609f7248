// The device a kcheck_worker runs ops on (CPU, or the current CUDA GPU),
// with a timer that measures the device's own time. Linked into
// kcheck_worker only (needs libtorch).
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <c10/core/Event.h>

namespace kcheck::worker {

// "cpu", plus "cuda" when this libtorch has CUDA and a GPU is visible.
std::vector<std::string> available_backends();

struct WorkerDevice {
  std::string backend;  // "cpu", "cuda"
  c10::Device device{c10::kCPU};
  std::string name;  // "NVIDIA H100 80GB HBM3", the CPU model
  std::int64_t last_level_cache_bytes = 0;
  // The device's own memory (the CPU's: the machine's physical memory); 0
  // where unknown (a worker built without the CUDA headers): then one output
  // block (timing_layout.h).
  std::int64_t memory_bytes = 0;

  // Waits for the device; on CUDA rethrows an asynchronous error of the
  // last kernels (c10::Error).
  void synchronize() const;
};

// Throws std::runtime_error when the backend is not available here.
WorkerDevice open_device(const std::string& backend);

// Times work queued on the device between start() and stop(): CUDA events
// on the current stream (the start event queued behind a device sleep), or
// the steady clock on the CPU.
class DeviceTimer {
 public:
  static constexpr std::int64_t kSpacerCycles = 1'000'000;  // about 0.5 ms at current GPU clock rates

  explicit DeviceTimer(const WorkerDevice& device);
  void start();
  double stop_seconds();  // waits for the device

 private:
  const WorkerDevice& device_;
  std::chrono::steady_clock::time_point cpu_start_;
  std::unique_ptr<c10::Event> start_event_;
  std::unique_ptr<c10::Event> stop_event_;
};

}  // namespace kcheck::worker
