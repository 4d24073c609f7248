#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcheck {

// A file of rules/ or reports/templates/ compiled into the executable.
struct EmbeddedFile {
  std::string_view path;  // relative to the source root, e.g. "rules/policies/hub.toml"
  std::string_view content;
};

const std::vector<EmbeddedFile>& embedded_files();
std::optional<std::string_view> find_embedded_file(std::string_view path);

}  // namespace kcheck
