#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checker/core/policy.h"

// A kernel repository's own kcheck configuration (kcheck.toml, or
// pyproject.toml's [tool.kcheck]) as read while collecting facts
// (checker/config/repository_config.h reads it; checker/audit applies it).

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
  // The policy `policy = "..."` names, read (bounded, inside the
  // repository) and checked as the config is loaded, so judging reads no file.
  // Set when the settings name a policy and it could be used.
  std::optional<Policy> own_policy;
  bool own_policy_embedded = false;  // it is one of kcheck's own, named ("hub-legacy"), not a file
  // Why the policy `policy = "..."` names cannot be used (no such embedded
  // policy or file, a link out of the repository, not a valid policy); ""
  // when it can. The audit then judges with the caller's policy and KC007
  // reports this as an error (issue #28).
  std::string policy_problem;
};

// Whether the caller applies the repository's config (not under --security or
// --no-repo-config), and whether the policy allows a code wider than one rule
// ("KP", "K"). Why a suppression is not applied follows from it
// (why_suppression_not_applied).
struct SuppressionTrust {
  bool repository_config_applied = true;
  bool code_prefixes_allowed = false;
};

// Which of the repository's suppressions an audit applies: none under
// --security or --no-repo-config, code prefixes only where the policy allows.
// judge() applies by it and KC007 reports by it: one decision.
inline SuppressionTrust suppression_trust(const Policy& policy, bool repository_config_applied) {
  return {repository_config_applied, policy.suppression_code_prefixes_allowed};
}

// Bounds on what a repository's config may hold (the bounded, in-root reading
// of every other file of an upload).
inline constexpr std::uint64_t kMaxSuppressionConfigBytes = 1u << 20;
inline constexpr std::size_t kMaxSuppressionEntries = 1000;
inline constexpr std::size_t kMaxSuppressionPathLength = 1024;
inline constexpr std::size_t kMaxSuppressionReasonLength = 1024;

}  // namespace kcheck
