#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/core/finding.h"
#include "checker/core/run_results.h"

namespace kcheck {

inline constexpr const char* kReportSchemaVersion = "1.8";

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
  DynamicResults dynamic;

  // What the report concludes: `fail` with an error (or a warning under
  // --strict); for `kcheck run`/`bench`, `not_run` when no variant could be
  // run at all and `unverified` when an op that ran was not verified (so no
  // output says PASS about an op nobody checked); else `pass`.
  enum class Verdict { pass, unverified, fail, not_run };
  Verdict verdict() const;
  // 0 = passes the gate (pass, unverified: KD007 is a warning), 1 = fails it, 2 = nothing could be run.
  int gate_status() const;
};

// "pass", "unverified", "fail", "not-run": the JSON and SARIF spelling.
const char* verdict_name(Report::Verdict verdict);
// "PASS", "UNVERIFIED", "FAIL", "NOT RUN": how the human formats show it.
const char* verdict_title(Report::Verdict verdict);

// Sorts findings and fills the per-variant and overall counts.
void finalise_report(Report& report);

nlohmann::json report_to_json(const Report& report);
// {"errors", "warnings", "notes", "suppressed"}: a report's summary, a variant's, a scan's totals.
nlohmann::json counts_to_json(const SeverityCounts& counts);
Report report_from_json(const nlohmann::json& json);  // throws std::runtime_error

}  // namespace kcheck
