#pragma once
#include <filesystem>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/core/report.h"
#include "checker/core/rule.h"

namespace kcheck {

// SARIF 2.1.0: one run, one reportingDescriptor per code that ran or was
// found (title, explanation as help, default level, security-severity for
// security rules, from `rules`), one result per finding with its file relative
// to the audited root (uriBaseId AUDITED_ROOT) or, with `source_root` (the
// repository a code-scanning service shows, `--sarif-root`), relative to that
// (uriBaseId SRCROOT); its line as a region, its symbol as a logical location,
// and a partial fingerprint that does not change when lines move. With
// `rules_url` (the published docs/rules.md, --rules-url) each rule's helpUri
// is its section there (URL#ke001) and the driver's informationUri the page.
nlohmann::json render_sarif(const Report& report, const std::vector<RuleInfo>& rules,
                            const std::optional<std::filesystem::path>& source_root = std::nullopt,
                            const std::string& rules_url = "");

}  // namespace kcheck
