#include "checker/audit/security_profile.h"

#include <algorithm>

namespace kcheck {

void apply_security_overlay(Policy& policy) { policy.rule_severity["KP006"] = Severity::error; }

void apply_security_profile(AuditOptions& options, Policy& policy) {
  options.apply_repository_suppressions = false;
  options.local_build = false;
  options.limits.max_file_size = std::min(options.limits.max_file_size, WalkLimits::kSecurityMaxFileSize);
  apply_security_overlay(policy);
}

std::string security_refusal(std::string_view command) {
  return "`kcheck " + std::string(command) + "` executes kernel code; --security forbids it";
}

}  // namespace kcheck
