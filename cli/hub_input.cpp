#include "cli/hub_input.h"

#include <cstdlib>
#include <stdexcept>

namespace kcheck::cli {

namespace fs = std::filesystem;

std::optional<HubReference> hub_reference(const std::string& input) {
  std::error_code error;
  if (fs::exists(fs::symlink_status(input, error))) return std::nullopt;
  return parse_hub_reference(input);
}

HubSnapshot hub_snapshot(const HubReference& reference) {
  HubSnapshot snapshot = find_hub_snapshot(
      hub_cache_directory([](const char* name) -> const char* { return std::getenv(name); }), reference);
  if (!snapshot.problem.empty()) throw std::invalid_argument(snapshot.problem);
  return snapshot;
}

std::string default_cache_directory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return (fs::path(xdg) / "kcheck").string();
  if (const char* home = std::getenv("HOME"); home && *home) return (fs::path(home) / ".cache" / "kcheck").string();
  return "";
}

fs::path private_hub_directory() {
  const std::string cache = default_cache_directory();
  if (cache.empty()) throw std::invalid_argument("no cache directory for Hub snapshots (set HOME or XDG_CACHE_HOME)");
  const fs::path parent = fs::path(cache) / "hub";
  fs::create_directories(parent);
  std::string pattern = (parent / "run-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot make a directory in " + parent.string());
  return pattern;
}

}  // namespace kcheck::cli
