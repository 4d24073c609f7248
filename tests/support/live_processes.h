#pragma once
// What the containment tests check after a run: which processes are still
// alive. Shared by tests/core, tests/harness and tests/security.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace kcheck::testing_support {

// The /proc/<pid>/stat lines of live processes whose command line holds
// `marker` (a fixture's module name, or a sleep's duration: a forked child
// keeps its parent's command line); zombies are left out.
inline std::vector<std::string> processes_running(const std::string& marker) {
  std::vector<std::string> running;
  std::error_code error;
  for (const std::filesystem::directory_entry& entry : std::filesystem::directory_iterator("/proc", error)) {
    std::ifstream cmdline(entry.path() / "cmdline", std::ios::binary);
    const std::string arguments((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (arguments.find(marker) == std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t name_end = line.rfind(')');
    if (name_end != std::string::npos && line.substr(name_end + 2, 1) != "Z") running.push_back(line);
  }
  return running;
}

}  // namespace kcheck::testing_support
