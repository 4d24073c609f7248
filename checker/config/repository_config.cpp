#include "checker/config/repository_config.h"

#include <algorithm>
#include <cctype>

#include <toml++/toml.h>

#include "checker/core/policy.h"
#include "checker/support/bounded_read.h"
#include "checker/support/checked_toml.h"

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
  if (!entry)
    fail(source, line_of(node),
         "every 'ignore' entry must be a rule code \"KE014\" or a table {code = ..., path = ..., reason = ...}");
  for (const auto& [key, value] : *entry)
    if (key != "code" && key != "path" && key != "reason")
      fail(source, line_of(value), "ignore entry: unknown key '" + std::string(key.str()) + "' (code, path, reason)");
  Suppression suppression;
  suppression.line = line_of(node);
  suppression.code = string_member(*entry, "code", source);
  if (suppression.code.empty()) fail(source, suppression.line, "ignore entry needs a rule code: code = \"KL005\"");
  suppression.path = string_member(*entry, "path", source);
  if (suppression.path.size() > kMaxSuppressionPathLength)
    fail(source, suppression.line,
         "ignore entry: path is longer than " + std::to_string(kMaxSuppressionPathLength) + " characters");
  suppression.reason = string_member(*entry, "reason", source);
  if (suppression.reason.size() > kMaxSuppressionReasonLength)
    fail(source, suppression.line,
         "ignore entry: reason is longer than " + std::to_string(kMaxSuppressionReasonLength) + " characters");
  return suppression;
}

// One path segment against a pattern segment (`*` any run, `?` one character):
// greedy with a return to the last `*` only, so O(pattern × text), never exponential.
bool match_segment(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star = std::string_view::npos, star_text = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_text = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++star_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
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

// The keys kcheck.toml (and [tool.kcheck]) may hold.
constexpr std::string_view kKnownKeys[] = {"ignore", "per-file-ignores", "policy", "select", "strict"};

std::string known_keys() {
  std::string keys;
  for (std::string_view key : kKnownKeys) keys += (keys.empty() ? "" : ", ") + std::string(key);
  return keys;
}

CodeSetting read_code(const toml::node& node, std::string_view key, const std::string& source) {
  if (!node.is_string() || node.as_string()->get().empty())
    fail(source, line_of(node), "'" + std::string(key) + "' holds rule codes: \"KE014\" or a prefix \"KP\"");
  return {node.as_string()->get(), line_of(node)};
}

std::vector<CodeSetting> read_codes(const toml::node& node, std::string_view key, const std::string& source) {
  const toml::array* array = node.as_array();
  if (!array)
    fail(source, line_of(node), "'" + std::string(key) + "' must be an array of rule codes [\"KE\", \"KP003\"]");
  if (array->size() > kMaxSuppressionEntries)
    fail(source, line_of(node),
         "more than " + std::to_string(kMaxSuppressionEntries) + " codes in '" + std::string(key) + "'");
  std::vector<CodeSetting> codes;
  for (const toml::node& code : *array) codes.push_back(read_code(code, key, source));
  return codes;
}

// per-file-ignores = {"GLOB" = ["CODE", ...]} or {"GLOB" = {codes = [...], reason = "..."}}:
// one suppression per code, at the glob's line.
void read_per_file_ignores(const toml::node& node, const std::string& source, SuppressionConfig& config) {
  const toml::table* globs = node.as_table();
  if (!globs)
    fail(source, line_of(node),
         "'per-file-ignores' must be a table {\"GLOB\" = [\"CODE\"]} or {\"GLOB\" = {codes, reason}}");
  for (const auto& [glob, value] : *globs) {
    if (glob.str().size() > kMaxSuppressionPathLength)
      fail(source, line_of(value),
           "per-file-ignores: a glob longer than " + std::to_string(kMaxSuppressionPathLength) + " characters");
    const toml::node* codes = &value;
    std::string reason;
    if (const toml::table* entry = value.as_table()) {
      for (const auto& [key, member] : *entry)
        if (key != "codes" && key != "reason")
          fail(source, line_of(member),
               "per-file-ignores: unknown key '" + std::string(key.str()) + "' (codes, reason)");
      codes = entry->get("codes");
      if (!codes)
        fail(source, line_of(value), "per-file-ignores: '" + std::string(glob.str()) + "' needs codes = [...]");
      reason = string_member(*entry, "reason", source);
      if (reason.size() > kMaxSuppressionReasonLength)
        fail(source, line_of(value),
             "per-file-ignores: reason is longer than " + std::to_string(kMaxSuppressionReasonLength) + " characters");
    }
    for (const CodeSetting& code : read_codes(*codes, "per-file-ignores", source)) {
      if (config.entries.size() + config.settings.ignore.size() >= kMaxSuppressionEntries)
        fail(source, code.line, "more than " + std::to_string(kMaxSuppressionEntries) + " ignore entries");
      config.entries.push_back({code.code, std::string(glob.str()), reason, code.line, "per-file-ignores"});
    }
  }
}

}  // namespace

SuppressionConfig parse_suppressions(std::string_view toml_text, const std::string& file_name) {
  toml::table root;
  try {
    root = checked_toml_parse(toml_text, file_name);
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
  // Every key is known: a misspelt one ("ignroe") would silently do nothing.
  for (const auto& [key, value] : *table)
    if (std::find(std::begin(kKnownKeys), std::end(kKnownKeys), key.str()) == std::end(kKnownKeys))
      fail(file_name, line_of(value),
           "unknown key '" + std::string(key.str()) + "' (" + config.file + " knows: " + known_keys() + ")");
  if (const toml::node* policy = table->get("policy")) {
    if (!policy->is_string() || policy->as_string()->get().empty())
      fail(file_name, line_of(*policy),
           "'policy' must be a policy name (hub, hub-legacy) or a policy file of the repository");
    config.settings.policy = policy->as_string()->get();
    config.settings.policy_line = line_of(*policy);
  }
  if (const toml::node* select = table->get("select")) {
    config.settings.select = read_codes(*select, "select", file_name);
    config.settings.select_line = line_of(*select);
  }
  if (const toml::node* strict = table->get("strict")) {
    if (!strict->is_boolean()) fail(file_name, line_of(*strict), "'strict' must be true or false");
    config.settings.strict = strict->as_boolean()->get();
    config.settings.strict_line = line_of(*strict);
  }
  if (const toml::node* ignore = table->get("ignore")) {
    const toml::array* entries = ignore->as_array();
    if (!entries)
      fail(file_name, line_of(*ignore),
           "'ignore' must be an array of rule codes and tables [\"KE014\", {code, path, reason}]");
    if (entries->size() > kMaxSuppressionEntries)
      fail(file_name, line_of(*ignore), "more than " + std::to_string(kMaxSuppressionEntries) + " ignore entries");
    for (const toml::node& entry : *entries) {
      if (entry.is_string())
        config.settings.ignore.push_back(read_code(entry, "ignore", file_name));
      else
        config.entries.push_back(read_entry(entry, file_name));
    }
  }
  if (const toml::node* per_file = table->get("per-file-ignores")) read_per_file_ignores(*per_file, file_name, config);
  if (config.entries.size() + config.settings.ignore.size() > kMaxSuppressionEntries)
    fail(file_name, 1, "more than " + std::to_string(kMaxSuppressionEntries) + " ignore entries");
  return config;
}

namespace {

// Reads and checks the policy the settings name (`policy = "hub-legacy"`,
// `policy = "policies/ours.toml"`) as the config itself is read: an embedded
// one by name, a file inside the repository, bounded. What cannot be used is
// `policy_problem`, naming the config's file and line. Judging then reads nothing.
void read_own_policy(SuppressionConfig& config) {
  const RepositorySettings& settings = config.settings;
  if (settings.policy.empty()) return;
  const std::vector<std::string> embedded = embedded_policy_names();
  if (std::find(embedded.begin(), embedded.end(), settings.policy) != embedded.end()) {
    config.own_policy = load_policy(settings.policy);
    config.own_policy_embedded = true;
    return;
  }
  const std::string where =
      config.file + ":" + std::to_string(settings.policy_line) + ": policy '" + settings.policy + "': ";
  std::string problem;
  const std::optional<std::string> text = read_inside_root(
      config.repository_root, config.repository_root / settings.policy, kMaxSuppressionConfigBytes, problem);
  if (!text) {
    config.policy_problem =
        where + (problem.empty() ? "neither an embedded policy nor a file of the repository" : problem);
    return;
  }
  try {
    config.own_policy = parse_policy(*text, settings.policy);
  } catch (const PolicyError& error) {
    config.policy_problem = where + error.what();
  }
}

}  // namespace

std::optional<SuppressionConfig> load_suppressions(const fs::path& repository_root) {
  for (std::string_view name : {kConfigFile, kPyproject}) {
    fs::path file = repository_root / name;
    std::string problem;
    std::optional<std::string> text = read_inside_root(repository_root, file, kMaxSuppressionConfigBytes, problem);
    // A config kcheck cannot use is the repository's problem, not kcheck's:
    // a finding (KC007), and the audit goes on (issue #28 item 10).
    auto unusable = [&](const std::string& why) {
      SuppressionConfig config;
      config.file = std::string(name);
      config.unusable = why;
      config.repository_root = repository_root;
      return config;
    };
    if (!problem.empty()) return unusable(std::string(name) + ": " + problem);
    if (!text) continue;
    SuppressionConfig config;
    try {
      config = parse_suppressions(*text, std::string(name));
    } catch (const SuppressionConfigError& error) {
      return unusable(error.what());  // "kcheck.toml:3: not valid TOML: ..."
    }
    if (name == kPyproject && config.entries.empty() && config.settings.empty())
      return std::nullopt;  // no [tool.kcheck]
    config.repository_root = repository_root;
    read_own_policy(config);
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

// Which path segments each pattern segment can end at, pattern segment by
// pattern segment (`**` spans zero or more): a walk over a table of
// pattern × path segments, never a search that branches.
bool glob_matches(std::string_view pattern, std::string_view path) {
  const std::vector<std::string_view> pattern_segments = split_path(pattern);
  const std::vector<std::string_view> path_segments = split_path(path);
  std::vector<char> reached(path_segments.size() + 1, 0), next(path_segments.size() + 1, 0);
  reached[0] = 1;
  for (std::string_view segment : pattern_segments) {
    std::fill(next.begin(), next.end(), 0);
    bool any_before = false;
    for (std::size_t s = 0; s <= path_segments.size(); ++s) {
      if (segment == "**") {
        any_before = any_before || reached[s];
        next[s] = static_cast<char>(any_before);
      } else if (s < path_segments.size() && reached[s] && match_segment(segment, path_segments[s])) {
        next[s + 1] = 1;
      }
    }
    reached.swap(next);
  }
  return reached[path_segments.size()];
}

bool is_single_rule_code(std::string_view code) {
  return code.size() == 5 && std::isupper(static_cast<unsigned char>(code[0])) &&
         std::isupper(static_cast<unsigned char>(code[1])) && std::isdigit(static_cast<unsigned char>(code[2])) &&
         std::isdigit(static_cast<unsigned char>(code[3])) && std::isdigit(static_cast<unsigned char>(code[4]));
}

std::string why_suppression_not_applied(const Suppression& suppression, const SuppressionTrust& trust) {
  if (!trust.repository_config_applied)
    return "repository suppressions are reported, not applied (--security or --no-repo-config)";
  return why_setting_not_applied(suppression.code, trust);
}

std::string why_setting_not_applied(std::string_view code, const SuppressionTrust& trust) {
  if (!trust.repository_config_applied)
    return "repository settings are reported, not applied (--security or --no-repo-config)";
  if (!trust.code_prefixes_allowed && !is_single_rule_code(code))
    return "'" + std::string(code) + "' is wider than one rule, and the policy allows only whole rule codes";
  return "";
}

}  // namespace kcheck
