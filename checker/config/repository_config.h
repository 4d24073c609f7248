#pragma once
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "checker/kinds/repository_config.h"

namespace kcheck {

// A config file that exists but cannot be used (not TOML, wrong shapes, unknown
// keys); the message names the file and the line.
class SuppressionConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads kcheck.toml in `repository_root`, else pyproject.toml's [tool.kcheck]
// table; nullopt when there is neither. A file that cannot be used (not TOML,
// wrong shapes, a link out of the repository, not a regular file, larger
// than kMaxSuppressionConfigBytes) comes back with `unusable` saying why
// (KC007 reports it): the config obeys the bounded, in-root reading of every
// other file of an upload. The policy its `policy` names is read with it.
std::optional<SuppressionConfig> load_suppressions(const std::filesystem::path& repository_root);

// The same from text already read; `file_name` says which of the two it is.
SuppressionConfig parse_suppressions(std::string_view toml_text, const std::string& file_name);

// Where the suppressions of a variant or module audit are looked for: for one
// inside `<repo>/build/`, <repo>; otherwise the audited root itself (a tree
// audit's audited root is the repository root: use it directly).
// `prefix` is what turns a finding's path (relative to the audited root) into
// one relative to the repository root ("" or "build/<variant>/").
struct SuppressionScope {
  std::filesystem::path repository_root;
  std::string prefix;
};
SuppressionScope suppression_scope(const std::filesystem::path& audited_root);

// Why a repository suppression is not applied, or "" when `trust` applies it.
std::string why_suppression_not_applied(const Suppression& suppression, const SuppressionTrust& trust);
// The same for a code of a repository setting (`ignore = ["KE014"]`, `select`).
std::string why_setting_not_applied(std::string_view code, const SuppressionTrust& trust);

// A rule code names one rule: two capital letters and three digits ("KL005").
bool is_single_rule_code(std::string_view code);

// `*` matches within one path segment, `**` any number of segments, `?` one
// character (not '/').
bool glob_matches(std::string_view pattern, std::string_view path);

}  // namespace kcheck
