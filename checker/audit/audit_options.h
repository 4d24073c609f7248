#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "checker/support/audit_deadline.h"
#include "checker/core/policy.h"
#include "checker/support/progress.h"
#include "checker/core/rule_registry.h"
#include "checker/core/rule.h"
#include "checker/support/walk_limits.h"
#include "checker/support/work_pool.h"

namespace kcheck {

// Options that shape one audit (from the CLI or a caller of the library).
struct AuditOptions {
  CodeSelection selection;
  bool strict = false;  // warnings fail the gate
  // The repository's kcheck.toml suppressions are applied; false (--security,
  // --no-repo-config): reported by KC007, never applied, so an upload cannot silence its own audit.
  bool apply_repository_suppressions = true;
  std::string repo_id;   // --repo-id owner/name, for KM005
  unsigned threads = 0;  // 0 = one per hardware thread
  // The threads the audit's files are analysed and hashed on, shared with
  // whatever else the caller runs (a scan's other repositories); none: the
  // audit makes a pool of `threads` of its own.
  WorkPool* pool = nullptr;
  ProgressSink* progress = nullptr;  // counts files scanned, bytes hashed, variants run; none: silent
  WalkLimits limits;                 // --max-depth, --max-files, --max-file-size
  AuditDeadline deadline;            // kcheck scan --repo-timeout; by default none
  // --local-build: judge what this machine built, not an upload; required
  // variants it cannot build (other Torch or CUDA releases) are a note (KL006).
  bool local_build = false;
  // A snapshot of the local Hugging Face cache holds only what was downloaded
  // (the `kernels` loader fetches the one variant it loads), so required
  // variants missing from it are a note (KL006) naming this command, which
  // downloads the whole repository; empty for any other input.
  std::string whole_download_command;
  // The caller chose the policy (--policy): a repository's `policy` setting is
  // then not applied. (A caller's selection wins the same way: a non-empty
  // selection.select leaves the repository's `select` unapplied.)
  bool policy_from_command_line = false;
  // Libraries at hand (a Torch's lib/, the CUDA toolkit's, the system's):
  // each native module's undefined symbols are resolved against its
  // DT_NEEDED closure found there (KE015); empty: judged by symbol family only.
  std::vector<std::filesystem::path> library_directories;

  // The part of these options the rules judge by.
  RuleOptions rule_options() const {
    return {repo_id, local_build, whole_download_command, apply_repository_suppressions, policy_from_command_line};
  }
};

}  // namespace kcheck
