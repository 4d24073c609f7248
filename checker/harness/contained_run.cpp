#include "checker/harness/contained_run.h"

#include <algorithm>
#include <system_error>
#include <thread>
#include <utility>

namespace kcheck {
namespace fs = std::filesystem;

PrivateScratch::PrivateScratch(fs::path path) : path_(std::move(path)) {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
  fs::create_directories(path_);
}

PrivateScratch::~PrivateScratch() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

ProcessLimits contained_limits(const VariantFacts& variant, const HarnessOptions& options,
                               std::chrono::milliseconds timeout, const fs::path& private_scratch) {
  Containment containment;
  containment.scratch = private_scratch;
  // RLIMIT_CPU counts every thread of a process: with all cores busy for the
  // whole timeout a legitimate run stays below it; a runaway one is ended.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  containment.cpu_time = std::chrono::ceil<std::chrono::seconds>(timeout) * cores + std::chrono::seconds(1);
  containment.file_size = options.max_file_size;
  containment.pass_environment = options.pass_environment;
  containment.network_namespace = !options.allow_network;
  containment.require_namespaces = options.require_sandbox;
  const bool cpu_variant = !variant.name || variant.name->backend == "cpu";
  if (cpu_variant) containment.address_space = options.cpu_address_space;
  return {timeout, options.max_output, containment};
}

}  // namespace kcheck
