#pragma once
#include <algorithm>
#include <string>
#include <string_view>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"

namespace kcheck {

// The policy overlay of the Hub-side profile: KP006 (code that executes or
// fetches) is an error. Inline, like the rest of this file, so a fuzz target
// or benchmark that links only the analysers judges under the profile too.
inline void apply_security_overlay(Policy& policy) { policy.rule_severity["KP006"] = Severity::error; }

// --security: the Hub-side profile for auditing an upload nobody has run yet.
// Everything it changes is here, so the CLI, a scan and a library caller
// mean the same by it:
//   - the repository's kcheck.toml is reported (KC007), never applied;
//   - never a local build (KL006 judges an upload);
//   - files above WalkLimits::kSecurityMaxFileSize are reported, not read;
//   - the policy's overlay (apply_security_overlay);
//   - nothing of the kernel is built or run (security_refusal), and reports
//     are structured only (json, sarif, junit: OutputFormatInfo::structured).
inline void apply_security_profile(AuditOptions& options, Policy& policy) {
  options.apply_repository_suppressions = false;
  options.local_build = false;
  options.limits.max_file_size = std::min(options.limits.max_file_size, WalkLimits::kSecurityMaxFileSize);
  apply_security_overlay(policy);
}

// Why `kcheck <command>` (build, run, bench: they execute kernel code) is
// refused under the profile.
inline std::string security_refusal(std::string_view command) {
  return "`kcheck " + std::string(command) + "` executes kernel code; --security forbids it";
}

}  // namespace kcheck
