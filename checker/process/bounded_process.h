#pragma once
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checker/kinds/process_end.h"
#include "checker/process/process_containment.h"

namespace kcheck {

// Limits for a child process: a worker loading untrusted kernel code, or a
// build tool (with a long timeout).
struct ProcessLimits {
  std::chrono::milliseconds timeout{60000};
  std::size_t max_output = 64 * 1024;      // the tail is kept; the child is never blocked on its output
  std::optional<Containment> containment;  // untrusted code: see process_containment.h
  // Contained only: the process gets a pipe as descriptor 3 for its results
  // (ProcessEnd::result), so no file it can reach is ever read as one.
  bool result_channel = false;
  std::size_t max_result = 64u << 20;
};

// Runs argv[0] (an absolute path or looked up on PATH) in its own process
// group with stdin from /dev/null and stdout+stderr captured together. Past
// the timeout the whole group gets SIGKILL. Decodes the exit status or signal.
// With `limits.containment`, it runs contained instead (and `directory` is
// not used: the scratch is its working directory); past the timeout its
// keeper kills it and everything it started.
ProcessEnd run_bounded(const std::vector<std::string>& argv, const ProcessLimits& limits,
                       const std::filesystem::path& directory = {});

}  // namespace kcheck
