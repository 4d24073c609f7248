#pragma once
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "checker/harness/harness_facts.h"

namespace kcheck {

// Limits for a child kcheck does not trust (a worker loading kernel code).
struct ProcessLimits {
  std::chrono::milliseconds timeout{60000};
  std::size_t max_output = 64 * 1024;  // the tail is kept; the child is never blocked on its output
};

// Runs argv[0] (an absolute path or looked up on PATH) in its own process
// group with stdin from /dev/null and stdout+stderr captured together. Past
// the timeout the whole group gets SIGKILL. Decodes the exit status or signal.
WorkerEnd run_bounded(const std::vector<std::string>& argv, const ProcessLimits& limits,
                      const std::filesystem::path& directory = {});

// "SIGSEGV (segmentation fault)", "signal 77".
std::string describe_signal(int signal);

}  // namespace kcheck
