#pragma once
#include <filesystem>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/report.h"
#include "checker/core/rule_registry.h"
#include "checker/harness/harness.h"

namespace kcheck {

// collect_facts + run_harness + judge: what `kcheck run` and `kcheck bench`
// do. Selects the dynamic rules (KD, KO006; KB with a benchmark) unless the
// options select others, and puts the measurements in `report.dynamic`.
Report run_dynamic_audit(const std::filesystem::path& input, const Policy& policy, AuditOptions options,
                         const RuleRegistry& rules, const HarnessOptions& harness);

}  // namespace kcheck
