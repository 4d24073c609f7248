#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace kcheck {

// The outcome of one external command run by the builder.
struct ProcessResult {
  int exit_code = -1;  // -1 when it could not start or ended by a signal
  std::string output;  // stdout and stderr together (bounded)
};

// Runs argv[0] (looked up on PATH) with the given arguments in `directory`,
// capturing its output up to `max_output` bytes (the tail is kept).
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& directory = {},
                          std::size_t max_output = 1 << 20);

}  // namespace kcheck
