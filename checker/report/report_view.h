#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/core/report.h"

namespace kcheck {

// What the reader-facing formats (Markdown, HTML) show of a Report, computed
// once here so that they agree: findings and dynamic results grouped by
// variant, places, numbers.

// One section of a report: the tree-level findings ("" variant), or one variant.
struct VariantSection {
  std::string variant;                      // "" for tree- or module-level findings
  std::string title;                        // the variant name, "tree" or "module"
  const VariantSummary* summary = nullptr;  // null for tree level and variants the report does not list
  std::vector<const Finding*> findings;
  std::vector<const OpCheck*> op_checks;
  std::vector<const BenchmarkResult*> benchmarks;
  const DeviceLimits* device = nullptr;  // what the variant's worker measured, if anything
  const VariantRun* run = nullptr;       // `kcheck run`: run or not, and why
  std::vector<const OpVerification*> ops;
  std::vector<const TestOutcome*> tests;
  // A section of findings that several variants repeat identically: the
  // variants, and the findings once each, their paths with the variant's
  // directory written `*` (build/*/_relu.abi3.so). Empty for one variant's section.
  std::vector<std::string> shared_by;
  std::shared_ptr<const std::vector<Finding>> shared_findings;
};

// Tree level first (when it has findings), then the findings repeated
// identically by two or more variants, once each with the list of variants
// (one section per set of variants), then every listed variant in the
// report's order with its own findings, then variants only findings or results
// name. The JSON report keeps one finding per variant; this is for readers.
std::vector<VariantSection> variant_sections(const Report& report);

// The findings a reader-facing format lists for a section: all of them,
// except that the KB001 notes of a section with a benchmark table are
// counted, not listed (the table holds their numbers).
struct ListedFindings {
  std::vector<const Finding*> findings;
  int benchmark_notes = 0;
};
ListedFindings listed_findings(const VariantSection& section);

// Benchmark results grouped by variant and op (in the order they first
// appear), each group's rows by dtype, then bytes moved: one table per op.
struct OpBenchmarks {
  std::string variant;
  std::string op;
  std::string eager;  // the baseline's expression (the same for the op's rows), or why there is none
  std::vector<const BenchmarkResult*> results;
};
std::vector<OpBenchmarks> benchmarks_by_op(const std::vector<const BenchmarkResult*>& results);

// "3 errors", "1 note".
std::string plural(int count, std::string_view word);

// Where a finding applies, on one line: "file:line .pointer [symbol]".
std::string finding_place(const Finding& finding);

// A JSON pointer as a reader of the JSON file finds the place (jq's path
// syntax): "/digest/files/layers~1__init__.py" is
// `.digest.files["layers/__init__.py"]`, "/kernels/0" `.kernels[0]`. The
// machine formats (JSON, SARIF) keep the pointer itself.
std::string readable_json_pointer(std::string_view pointer);

// The finding's file as a reader finds it: relative to `relative_to` (where
// kcheck ran, the repository root) when the file lies below it, else the
// whole path; without `relative_to`, as the report has it (relative to the
// audited root; "." for the root itself).
std::string shown_path(const Report& report, const Finding& finding,
                       const std::optional<std::filesystem::path>& relative_to);

// A number with a fixed count of decimals ("2905.0"), for tables and charts.
std::string format_number(double value, int decimals);

}  // namespace kcheck
