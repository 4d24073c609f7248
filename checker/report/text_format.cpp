#include "checker/report/text_format.h"

#include <map>
#include <sstream>

namespace kcheck {

namespace {

const char* colour_of(Severity severity) {
  switch (severity) {
    case Severity::error: return "\033[31m";
    case Severity::warning: return "\033[33m";
    case Severity::note: return "\033[36m";
  }
  return "";
}

class TextWriter {
 public:
  explicit TextWriter(const TextStyle& style) : style_(style) {}

  std::string paint(const std::string& text, const char* colour) const {
    return style_.colour ? std::string(colour) + text + "\033[0m" : text;
  }
  std::string bold(const std::string& text) const { return paint(text, "\033[1m"); }

  std::string finding_line(const Finding& finding) const {
    std::ostringstream line;
    std::string severity(to_string(finding.severity));
    line << "  " << paint(severity, colour_of(finding.severity)) << std::string(8 - severity.size(), ' ')
         << bold(finding.code) << "  " << (finding.file.empty() ? "." : finding.file);
    if (finding.location.line) line << ":" << finding.location.line;
    if (!finding.location.json_pointer.empty()) line << " " << finding.location.json_pointer;
    if (!finding.location.symbol.empty()) line << " [" << finding.location.symbol << "]";
    line << "\n          " << finding.message;
    if (finding.suppressed) line << " (suppressed: " << finding.suppression_reason << ")";
    return line.str();
  }

 private:
  TextStyle style_;
};

std::string plural(int count, const std::string& word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

}  // namespace

std::string render_text(const Report& report, const TextStyle& style) {
  TextWriter writer(style);
  std::ostringstream out;
  out << writer.bold("kcheck " + report.tool_version) << "  policy " << report.policy_name << "  " << report.scope
      << " " << report.audited_root << "\n";
  std::map<std::string, std::vector<const Finding*>> by_variant;
  for (const Finding& finding : report.findings) by_variant[finding.variant].push_back(&finding);
  auto print_group = [&](const std::string& title, const std::vector<const Finding*>& findings) {
    out << "\n" << writer.bold(title) << "\n";
    for (const Finding* finding : findings) out << writer.finding_line(*finding) << "\n";
  };
  if (auto tree_level = by_variant.find(""); tree_level != by_variant.end())
    print_group(report.scope == "module" ? "module" : "tree", tree_level->second);
  for (const VariantSummary& variant : report.variants) {
    auto found = by_variant.find(variant.name);
    if (found == by_variant.end() || variant.name.empty()) {
      if (!variant.name.empty()) out << "\n" << writer.bold(variant.name) << "  " << writer.paint("ok", "\033[32m") << "\n";
      continue;
    }
    print_group(variant.name, found->second);
  }
  const SeverityCounts& counts = report.summary;
  bool passes = report.gate_status() == 0;
  out << "\n"
      << plural(static_cast<int>(report.variants.size()), "variant") << ", " << plural(counts.errors, "error") << ", "
      << plural(counts.warnings, "warning") << ", " << plural(counts.notes, "note");
  if (counts.suppressed) out << ", " << counts.suppressed << " suppressed";
  out << ": " << (passes ? writer.paint("PASS", "\033[32m") : writer.paint("FAIL", "\033[31m")) << "\n";
  return out.str();
}

}  // namespace kcheck
