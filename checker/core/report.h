#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/core/finding.h"

namespace kcheck {

inline constexpr const char* kReportSchemaVersion = "1.0";

struct SeverityCounts {
  int errors = 0;
  int warnings = 0;
  int notes = 0;
  int suppressed = 0;
};

struct VariantSummary {
  std::string name;     // directory name
  std::string path;     // relative to the audited root
  std::string backend;  // from the name, or "" when it does not parse
  SeverityCounts counts;
};

// The result of one audit: every output format renders from this value.
struct Report {
  std::string schema_version = kReportSchemaVersion;
  std::string tool_version;
  std::string policy_name;
  std::string policy_source;
  std::string input;         // the path as given
  std::string audited_root;  // absolute
  std::string scope;         // "tree", "variant", "module"
  bool strict = false;
  std::vector<std::string> rules_run;  // codes
  std::vector<VariantSummary> variants;
  Findings findings;  // sorted: variant, file, code, line
  SeverityCounts summary;

  // 0 = passes the gate, 1 = fails it.
  int gate_status() const;
};

// Sorts findings and fills the per-variant and overall counts.
void finalise_report(Report& report);

nlohmann::json report_to_json(const Report& report);
Report report_from_json(const nlohmann::json& json);  // throws std::runtime_error

}  // namespace kcheck
