#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/core/report.h"
#include "checker/core/rule.h"

namespace kcheck {

// SARIF 2.1.0: one run, one reportingDescriptor per code that ran or was
// found (title, explanation as help, default level, from `rules`), one result
// per finding with its file relative to the audited root (uriBaseId
// AUDITED_ROOT), its line as a region and its symbol as a logical location.
nlohmann::json render_sarif(const Report& report, const std::vector<RuleInfo>& rules);

}  // namespace kcheck
