#pragma once
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kcheck::testing {

// The interpreter test-only oracles run in: the repo venv when present,
// else the machine's python3.
inline std::string oracle_python() {
  return std::filesystem::exists(KCHECK_VENV_PYTHON) ? std::string(KCHECK_VENV_PYTHON) : std::string("python3");
}

struct CommandResult {
  int status = -1;
  std::string output;  // stdout
};

inline CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  std::size_t read = 0;
  while ((read = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, read);
  result.status = pclose(pipe);
  return result;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// Single-quotes a string for /bin/sh.
inline std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace kcheck::testing
