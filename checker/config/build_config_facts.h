#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kcheck {

// build.toml of a kernel source tree, as read for the KC rules and for
// `kcheck build` (build-toml.md). Filled by read_build_config().
struct BuildConfigFacts {
  bool present = false;
  std::string relative_path = "build.toml";  // relative to the audited root
  std::string parse_error;                   // TOML syntax error (KC001)
  int parse_error_line = 0;
  int parse_error_column = 0;
};

// Reads `<kernel_dir>/build.toml`. Never throws on bad input.
BuildConfigFacts read_build_config(const std::filesystem::path& kernel_dir);

}  // namespace kcheck
