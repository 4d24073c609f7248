#include "checker/report/report_view.h"

#include <algorithm>
#include <cstdio>

namespace kcheck {

namespace {

VariantSection& section_for(std::vector<VariantSection>& sections, const std::string& variant) {
  auto found = std::find_if(sections.begin(), sections.end(),
                            [&](const VariantSection& section) { return section.variant == variant; });
  if (found != sections.end()) return *found;
  sections.push_back({variant, variant});
  return sections.back();
}

}  // namespace

std::vector<VariantSection> variant_sections(const Report& report) {
  std::vector<VariantSection> sections;
  bool tree_level = std::any_of(report.findings.begin(), report.findings.end(),
                                [](const Finding& finding) { return finding.variant.empty(); });
  if (tree_level) sections.push_back({"", report.scope == "module" ? "module" : "tree"});
  for (const VariantSummary& variant : report.variants) {
    if (variant.name.empty()) continue;
    section_for(sections, variant.name).summary = &variant;
  }
  for (const Finding& finding : report.findings) section_for(sections, finding.variant).findings.push_back(&finding);
  for (const OpCheck& check : report.dynamic.op_checks) section_for(sections, check.variant).op_checks.push_back(&check);
  for (const BenchmarkResult& result : report.dynamic.benchmarks)
    section_for(sections, result.variant).benchmarks.push_back(&result);
  for (const DeviceLimits& device : report.dynamic.devices) {
    VariantSection& section = section_for(sections, device.variant);
    if (!section.device) section.device = &device;
  }
  return sections;
}

std::string plural(int count, std::string_view word) {
  return std::to_string(count) + " " + std::string(word) + (count == 1 ? "" : "s");
}

std::string finding_place(const Finding& finding) {
  std::string place = finding.file.empty() ? "." : finding.file;
  if (finding.location.line) place += ":" + std::to_string(finding.location.line);
  if (!finding.location.json_pointer.empty()) place += " " + finding.location.json_pointer;
  if (!finding.location.symbol.empty()) place += " [" + finding.location.symbol + "]";
  return place;
}

std::string format_number(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace kcheck
