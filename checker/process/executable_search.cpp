#include "checker/process/executable_search.h"

#include <unistd.h>

#include <string>

namespace kcheck {

std::filesystem::path find_executable(std::string_view name, const char* path_variable) {
  if (name.empty()) return {};
  if (name.find('/') != std::string_view::npos) {
    // Absolute, so that what is checked here is what runs, whatever directory it runs in.
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(std::filesystem::path(name), error);
    return !error && ::access(absolute.c_str(), X_OK) == 0 ? absolute : std::filesystem::path();
  }
  std::string_view directories = path_variable ? path_variable : "/usr/bin:/bin";  // execvp's default, less "."
  while (!directories.empty()) {
    const std::size_t colon = directories.find(':');
    const std::string_view directory = directories.substr(0, colon);
    directories = colon == std::string_view::npos ? std::string_view() : directories.substr(colon + 1);
    if (directory.empty() || directory.front() != '/') continue;
    std::filesystem::path candidate = std::filesystem::path(directory) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace kcheck
