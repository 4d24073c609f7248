#pragma once
#include <string>
#include <vector>

#include "checker/process/bounded_process.h"

namespace kcheck {

// Runs a build tool (cmake, nvcc, git, cc) through the one bounded runner,
// with limits fit for a compiler: a long timeout, the last MiB of output.
inline ProcessEnd run_build_tool(const std::vector<std::string>& argv,
                                 std::chrono::milliseconds timeout = std::chrono::hours(2)) {
  return run_bounded(argv, ProcessLimits{timeout, 1 << 20});
}

}  // namespace kcheck
