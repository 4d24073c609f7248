#include "checker/core/suppressions.h"

#include <fstream>
#include <iterator>

#include <toml++/toml.h>

namespace kcheck {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kConfigFile = "kcheck.toml";
constexpr std::string_view kPyproject = "pyproject.toml";

int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

[[noreturn]] void fail(const std::string& source, int line, const std::string& problem) {
  throw SuppressionConfigError(source + ":" + std::to_string(line) + ": " + problem);
}

std::string string_member(const toml::table& entry, std::string_view key, const std::string& source) {
  const toml::node* value = entry.get(key);
  if (!value) return {};
  if (!value->is_string()) fail(source, line_of(*value), "ignore entry: '" + std::string(key) + "' must be a string");
  return value->as_string()->get();
}

Suppression read_entry(const toml::node& node, const std::string& source) {
  const toml::table* entry = node.as_table();
  if (!entry) fail(source, line_of(node), "every 'ignore' entry must be a table {code = ..., path = ..., reason = ...}");
  for (const auto& [key, value] : *entry)
    if (key != "code" && key != "path" && key != "reason")
      fail(source, line_of(value), "ignore entry: unknown key '" + std::string(key.str()) + "' (code, path, reason)");
  Suppression suppression;
  suppression.line = line_of(node);
  suppression.code = string_member(*entry, "code", source);
  if (suppression.code.empty()) fail(source, suppression.line, "ignore entry needs a rule code: code = \"KL005\"");
  suppression.path = string_member(*entry, "path", source);
  suppression.reason = string_member(*entry, "reason", source);
  return suppression;
}

std::optional<std::string> read_file(const fs::path& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return std::nullopt;
  std::ifstream stream(path, std::ios::binary);
  std::string text(std::istreambuf_iterator<char>(stream), {});
  if (!stream && !stream.eof()) throw SuppressionConfigError("cannot read " + path.string());
  return text;
}

// Matches pattern segments against path segments; `**` spans zero or more.
bool match_segment(std::string_view pattern, std::string_view text) {
  if (pattern.empty()) return text.empty();
  if (pattern.front() == '*') {
    for (std::size_t skip = 0; skip <= text.size(); ++skip)
      if (match_segment(pattern.substr(1), text.substr(skip))) return true;
    return false;
  }
  if (text.empty()) return false;
  if (pattern.front() != '?' && pattern.front() != text.front()) return false;
  return match_segment(pattern.substr(1), text.substr(1));
}

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> segments;
  while (!path.empty()) {
    std::size_t slash = path.find('/');
    std::string_view segment = path.substr(0, slash);
    if (!segment.empty() && segment != ".") segments.push_back(segment);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return segments;
}

bool match_segments(const std::vector<std::string_view>& pattern, std::size_t p,
                    const std::vector<std::string_view>& path, std::size_t s) {
  if (p == pattern.size()) return s == path.size();
  if (pattern[p] == "**") {
    for (std::size_t next = s; next <= path.size(); ++next)
      if (match_segments(pattern, p + 1, path, next)) return true;
    return false;
  }
  return s < path.size() && match_segment(pattern[p], path[s]) && match_segments(pattern, p + 1, path, s + 1);
}

}  // namespace

SuppressionConfig parse_suppressions(std::string_view toml_text, const std::string& file_name) {
  toml::table root;
  try {
    root = toml::parse(toml_text, file_name);
  } catch (const toml::parse_error& error) {
    fail(file_name, static_cast<int>(error.source().begin.line), "not valid TOML: " + std::string(error.description()));
  }
  SuppressionConfig config;
  config.file = fs::path(file_name).filename().string();
  const toml::table* table = &root;
  if (config.file == kPyproject) {
    table = root["tool"]["kcheck"].as_table();
    if (!table) return config;
  }
  const toml::node* ignore = table->get("ignore");
  if (!ignore) return config;
  const toml::array* entries = ignore->as_array();
  if (!entries) fail(file_name, line_of(*ignore), "'ignore' must be an array of tables [{code, path, reason}]");
  for (const toml::node& entry : *entries) config.entries.push_back(read_entry(entry, file_name));
  return config;
}

std::optional<SuppressionConfig> load_suppressions(const fs::path& repository_root) {
  for (std::string_view name : {kConfigFile, kPyproject}) {
    fs::path file = repository_root / name;
    std::optional<std::string> text = read_file(file);
    if (!text) continue;
    SuppressionConfig config = parse_suppressions(*text, file.string());
    if (name == kPyproject && config.entries.empty()) return std::nullopt;  // a pyproject without [tool.kcheck]
    return config;
  }
  return std::nullopt;
}

SuppressionScope suppression_scope(const fs::path& audited_root) {
  // build/<variant> or build/<variant>/<subdir> (a module's directory).
  fs::path dir = audited_root;
  for (int depth = 0; depth < 3 && dir.has_relative_path(); ++depth, dir = dir.parent_path()) {
    if (dir.filename() != "build" || depth == 0) continue;
    fs::path repository = dir.parent_path();
    return {repository, audited_root.lexically_relative(repository).generic_string() + "/"};
  }
  return {audited_root, ""};
}

bool glob_matches(std::string_view pattern, std::string_view path) {
  return match_segments(split_path(pattern), 0, split_path(path), 0);
}

void apply_suppressions(const SuppressionConfig& config, std::string_view path_prefix, Findings& findings) {
  for (Finding& finding : findings) {
    if (finding.suppressed) continue;
    std::string path = finding.file.empty() ? std::string() : std::string(path_prefix) + finding.file;
    for (const Suppression& suppression : config.entries) {
      if (!finding.code.starts_with(suppression.code)) continue;
      if (!suppression.path.empty() && !glob_matches(suppression.path, path)) continue;
      finding.suppressed = true;
      finding.suppression_reason =
          suppression.reason.empty() ? config.file + ":" + std::to_string(suppression.line) + " (no reason given)"
                                     : suppression.reason;
      break;
    }
  }
}

}  // namespace kcheck
