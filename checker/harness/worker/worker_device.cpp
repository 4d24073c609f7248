#include "checker/harness/worker/worker_device.h"

#include <fstream>
#include <stdexcept>

#include <unistd.h>

#include <ATen/Context.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#ifdef KCHECK_WORKER_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/Sleep.h>
#endif

namespace kcheck::worker {
namespace {

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "cpu";
}

c10::Stream current_stream(const WorkerDevice& device) {
  return c10::impl::VirtualGuardImpl(device.device.type()).getStream(device.device);
}

}  // namespace

std::vector<std::string> available_backends() {
  std::vector<std::string> backends = {"cpu"};
  if (at::hasCUDA()) backends.emplace_back("cuda");
  return backends;
}

WorkerDevice open_device(const std::string& backend) {
  WorkerDevice device;
  device.backend = backend;
  if (backend == "cpu") {
    device.name = cpu_model_name();
    device.last_level_cache_bytes = 32ll << 20;  // no portable query; generous for today's CPUs
    const long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page_bytes > 0) device.memory_bytes = static_cast<std::int64_t>(pages) * page_bytes;
    return device;
  }
  if (backend == "cuda" && at::hasCUDA()) {
    device.device = c10::Device(c10::kCUDA, 0);
#ifdef KCHECK_WORKER_CUDA
    const auto* properties = at::cuda::getDeviceProperties(0);
    device.name = properties->name;
    device.last_level_cache_bytes = properties->l2CacheSize;
    device.memory_bytes = static_cast<std::int64_t>(properties->totalGlobalMem);
#else
    device.name = "cuda:0";
    device.last_level_cache_bytes = 64ll << 20;
#endif
    return device;
  }
  throw std::runtime_error("backend " + backend + " is not available in this kcheck_worker");
}

void WorkerDevice::synchronize() const {
  if (device.is_cpu()) return;
  current_stream(*this).synchronize();
}

DeviceTimer::DeviceTimer(const WorkerDevice& device) : device_(device) {
  if (!device.device.is_cpu()) {
    start_event_ = std::make_unique<c10::Event>(device.device.type(), c10::EventFlag::BACKEND_DEFAULT);
    stop_event_ = std::make_unique<c10::Event>(device.device.type(), c10::EventFlag::BACKEND_DEFAULT);
  }
}

void DeviceTimer::start() {
  if (device_.device.is_cpu()) {
    cpu_start_ = std::chrono::steady_clock::now();
    return;
  }
  // The start event waits behind about half a millisecond of device sleep,
  // while this thread queues the sample's first calls: the sample times the
  // device's work, not the time taken to issue the first call while the
  // device idles (checker/harness/compile_baselines.py's Timer does the same
  // for the torch.compile baselines, where that time reached 6% of a sample).
#ifdef KCHECK_WORKER_CUDA
  if (device_.device.is_cuda()) at::cuda::sleep(kSpacerCycles);
#endif
  start_event_->record(current_stream(device_));
}

double DeviceTimer::stop_seconds() {
  if (device_.device.is_cpu())
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - cpu_start_).count();
  stop_event_->record(current_stream(device_));
  stop_event_->synchronize();
  return start_event_->elapsedTime(*stop_event_) / 1e3;
}

}  // namespace kcheck::worker
