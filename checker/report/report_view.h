#pragma once
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
  std::string variant;                  // "" for tree- or module-level findings
  std::string title;                    // the variant name, "tree" or "module"
  const VariantSummary* summary = nullptr;  // null for tree level and variants the report does not list
  std::vector<const Finding*> findings;
  std::vector<const OpCheck*> op_checks;
  std::vector<const BenchmarkResult*> benchmarks;
  const DeviceLimits* device = nullptr;  // what the variant's worker measured, if anything
};

// Tree level first (when it has findings), then every listed variant in the
// report's order, then variants only findings or results name.
std::vector<VariantSection> variant_sections(const Report& report);

// "3 errors", "1 note".
std::string plural(int count, std::string_view word);

// Where a finding applies, on one line: "file:line /pointer [symbol]".
std::string finding_place(const Finding& finding);

// A number with a fixed count of decimals ("2905.0"), for tables and charts.
std::string format_number(double value, int decimals);

}  // namespace kcheck
