#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "checker/core/audit_deadline.h"
#include "checker/core/finding.h"
#include "checker/core/policy.h"

namespace kcheck {

// One entry of `ignore = [{code, path, reason}]` in a kernel repository's
// kcheck.toml (or pyproject.toml's [tool.kcheck]), or one code of a
// `per-file-ignores` glob.
struct Suppression {
  std::string code;            // a rule code or a code prefix ("KL005", "KP")
  std::string path;            // glob relative to the repository root; "" = every file
  std::string reason;          // "" = none given (KC006 warns)
  int line = 0;                // of the entry in the config file
  std::string key = "ignore";  // the config key it was written under: "ignore" or "per-file-ignores"
};

// A rule code (or prefix) a repository setting names, with its line.
struct CodeSetting {
  std::string code;
  int line = 0;
};

// A repository's settings besides its suppressions: what --policy, --select,
// --ignore and --strict say on a command line. The command line wins where it
// says something; under --security or --no-repo-config none is applied.
struct RepositorySettings {
  std::string policy;  // an embedded policy name or a file of the repository; "" = not set
  int policy_line = 0;
  std::optional<std::vector<CodeSetting>> select;
  int select_line = 0;
  std::vector<CodeSetting> ignore;  // the code strings of `ignore`: rules not run, as --ignore
  std::optional<bool> strict;
  int strict_line = 0;
  bool empty() const { return policy.empty() && !select && ignore.empty() && !strict; }
};

// The suppressions and settings of a kernel repository and where they were read.
struct SuppressionConfig {
  std::string file;  // relative to the repository root: "kcheck.toml" or "pyproject.toml"
  std::vector<Suppression> entries;
  RepositorySettings settings;
  std::filesystem::path repository_root;  // where it was read (load_suppressions)
  // Why the file cannot be used (unreadable, a link out of the repository,
  // too large, not TOML, a key kcheck does not know): then nothing of it is
  // applied and KC007 says so; "" when it was read.
  std::string unusable;
  // The policy file `policy = "..."` names, read (bounded, inside the
  // repository) and checked as the config is loaded, so judging reads no file.
  // Set when the settings name a file and it could be used.
  std::optional<Policy> own_policy;
  // Why the policy `policy = "..."` names cannot be used (no such embedded
  // policy or file, a link out of the repository, not a valid policy); ""
  // when it can. The audit then judges with the caller's policy and KC007
  // reports this as an error (issue #28).
  std::string policy_problem;
};

// A config file that exists but cannot be used (not TOML, wrong shapes, unknown
// keys); the message names the file and the line.
class SuppressionConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads kcheck.toml in `repository_root`, else pyproject.toml's [tool.kcheck]
// table. nullopt when there is neither. Throws SuppressionConfigError, also
// for a file that is a link out of the repository, not a regular file, or
// larger than kMaxSuppressionConfigBytes: the config obeys the bounded,
// in-root reading of every other file of an upload.
inline constexpr std::uint64_t kMaxSuppressionConfigBytes = 1u << 20;
inline constexpr std::size_t kMaxSuppressionEntries = 1000;
inline constexpr std::size_t kMaxSuppressionPathLength = 1024;
inline constexpr std::size_t kMaxSuppressionReasonLength = 1024;
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

// Why a repository suppression is not applied, or "" when it is: the caller
// does not trust the repository's config (--security, --no-repo-config), or
// its code is a prefix wider than one rule ("KP", "K") and the policy does not
// allow prefixes.
struct SuppressionTrust {
  bool repository_config_applied = true;
  bool code_prefixes_allowed = false;
};
std::string why_suppression_not_applied(const Suppression& suppression, const SuppressionTrust& trust);
// The same for a code of a repository setting (`ignore = ["KE014"]`, `select`).
std::string why_setting_not_applied(std::string_view code, const SuppressionTrust& trust);

// A rule code names one rule: two capital letters and three digits ("KL005").
bool is_single_rule_code(std::string_view code);

// `*` matches within one path segment, `**` any number of segments, `?` one
// character (not '/').
bool glob_matches(std::string_view pattern, std::string_view path);

// Marks every finding a suppression matches (code prefix and path glob) as
// suppressed, with the entry's reason; entries `trust` does not apply are left
// out. Checks `deadline` between findings (AuditTimeout past it). Returns,
// per entry of `config`, whether it matched a finding.
std::vector<bool> apply_suppressions(const SuppressionConfig& config, std::string_view path_prefix,
                                     const SuppressionTrust& trust, Findings& findings,
                                     const AuditDeadline& deadline = {});

}  // namespace kcheck
