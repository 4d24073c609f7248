#pragma once
#include <string>
#include <string_view>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"

namespace kcheck {

// --security: the Hub-side profile for auditing an upload nobody has run yet.
// Everything it changes is here, so the CLI, a scan and a library caller
// mean the same by it:
//   - the repository's kcheck.toml is reported (KC007), never applied;
//   - never a local build (KL006 judges an upload);
//   - files above WalkLimits::kSecurityMaxFileSize are reported, not read;
//   - the policy's overlay: KP006 (code that executes or fetches) is an error;
//   - nothing of the kernel is built or run (security_refusal), and reports
//     are structured only (json, sarif, junit: OutputFormatInfo::structured).
void apply_security_profile(AuditOptions& options, Policy& policy);

// The policy overlay alone: what apply_security_profile adds to a policy.
void apply_security_overlay(Policy& policy);

// Why `kcheck <command>` (build, run, bench: they execute kernel code) is
// refused under the profile.
std::string security_refusal(std::string_view command);

}  // namespace kcheck
