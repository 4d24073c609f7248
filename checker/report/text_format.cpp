#include "checker/report/text_format.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "checker/report/report_view.h"

namespace kcheck {

namespace {

constexpr std::size_t kLongestFix = 100;

const char* colour_of(Severity severity) {
  switch (severity) {
    case Severity::error:
      return "\033[31m";
    case Severity::warning:
      return "\033[33m";
    case Severity::note:
      return "\033[36m";
  }
  return "";
}

bool shown(const Finding& finding, const TextStyle& style) {
  if (finding.suppressed) return style.least_shown == Severity::note;
  return finding.severity >= style.least_shown;
}

class TextWriter {
 public:
  TextWriter(const Report& report, const TextStyle& style, const std::vector<RuleInfo>& rules)
      : report_(report), style_(style), rules_(rules) {}

  std::string paint(const std::string& text, const char* colour) const {
    return style_.colour ? std::string(colour) + text + "\033[0m" : text;
  }
  std::string bold(const std::string& text) const { return paint(text, "\033[1m"); }

  std::string finding_line(const Finding& finding) const {
    std::ostringstream line;
    std::string severity(to_string(finding.severity));
    line << "  " << paint(severity, colour_of(finding.severity)) << std::string(8 - severity.size(), ' ')
         << bold(finding.code) << "  " << shown_path(finding);
    if (finding.location.line) line << ":" << finding.location.line;
    if (!finding.location.json_pointer.empty()) line << " " << readable_json_pointer(finding.location.json_pointer);
    if (!finding.location.symbol.empty()) line << " [" << finding.location.symbol << "]";
    line << "\n          " << finding.message;
    if (finding.suppressed) line << " (suppressed: " << finding.suppression_reason << ")";
    line << "\n          " << hint(finding.code);
    return line.str();
  }

 private:
  std::string shown_path(const Finding& finding) const {
    return kcheck::shown_path(report_, finding, style_.relative_to);
  }

  // Worked out once per code of the report.
  const std::string& hint(const std::string& code) const {
    auto known = hints_.find(code);
    if (known != hints_.end()) return known->second;
    auto rule = std::find_if(rules_.begin(), rules_.end(), [&](const RuleInfo& info) { return info.code == code; });
    const std::string fix = rule == rules_.end() ? "" : one_line_fix(*rule);
    return hints_[code] =
               fix.empty() ? paint("more: kcheck explain " + code, "\033[2m") : paint("fix: " + fix, "\033[2m");
  }

  const Report& report_;
  const TextStyle& style_;
  const std::vector<RuleInfo>& rules_;
  mutable std::map<std::string, std::string> hints_;
};

// "; 3 notes hidden (--show-notes)": what the threshold left out of the list.
std::string hidden_summary(const SeverityCounts& counts, const TextStyle& style) {
  std::string text;
  if (style.least_shown == Severity::error && counts.warnings)
    text += "; " + plural(counts.warnings, "warning") + " hidden";
  if (style.least_shown != Severity::note && counts.notes)
    text += "; " + plural(counts.notes, "note") + " hidden (--show-notes)";
  return text;
}

// "12 passed, 1 failed" over one variant's test outcomes.
std::string test_counts(const std::vector<TestOutcome>& tests, const std::string& variant) {
  std::map<std::string, int> by_outcome;
  for (const TestOutcome& test : tests)
    if (test.variant == variant) ++by_outcome[test.outcome];
  std::string text;
  for (const char* outcome : {"passed", "failed", "error", "skipped", "xfailed", "xpassed"})
    if (by_outcome[outcome]) text += (text.empty() ? "" : ", ") + std::to_string(by_outcome[outcome]) + " " + outcome;
  return text;
}

// What `kcheck run` did with each variant, shown whatever the severity
// threshold (a variant not run is a note, KD005): run with its op counts,
// or not run and why; and the kernel's tests.
std::string harness_summary(const DynamicResults& dynamic) {
  if (dynamic.runs.empty()) return "";
  const auto ran =
      std::count_if(dynamic.runs.begin(), dynamic.runs.end(), [](const VariantRun& run) { return run.ran; });
  std::ostringstream out;
  out << "\nkcheck run: " << ran << " of " << plural(static_cast<int>(dynamic.runs.size()), "variant") << " run, "
      << plural(dynamic.ops_registered(), "op") << " registered, " << dynamic.ops_verified() << " verified\n";
  for (const VariantRun& run : dynamic.runs) {
    out << "  " << run.variant << ": ";
    if (run.ran)
      out << plural(run.ops_registered, "op") << " registered, " << run.ops_verified << " verified";
    else
      out << run.reason;
    const std::string tests = test_counts(dynamic.tests, run.variant);
    if (!tests.empty()) out << "; its tests: " << tests;
    out << "\n";
  }
  // The Torches the variants ran against, each once.
  std::set<std::string> torches;
  for (const VariantRun& run : dynamic.runs)
    if (!run.torch.empty())
      torches.insert("Torch " + run.torch + (run.python.empty() ? "" : " of " + run.python) +
                     (run.worker.empty() ? ", imported through Python" : ", worker " + run.worker));
  for (const std::string& torch : torches) out << "  against " << torch << "\n";
  if (!dynamic.containment.empty()) out << "  contained: " << dynamic.containment << "\n";
  return out.str();
}

}  // namespace

std::string one_line_fix(const RuleInfo& rule) {
  const std::string& text = rule.explanation;
  const std::size_t start = text.find("Fix: ");
  if (start == std::string::npos) return "";
  std::string fix;
  int depth = 0;  // inside parentheses or `code` a ';' or '.' ends nothing
  bool in_code = false;
  for (std::size_t i = start + 5; i < text.size(); ++i) {
    const char c = text[i];
    const bool last = i + 1 == text.size();
    if (c == '\n' && !last && text[i + 1] == '\n') break;  // end of the paragraph
    const bool outside = depth == 0 && !in_code;
    if (outside && text.compare(i, 6, ", e.g.") == 0) break;  // the clause, not its example
    if (outside && (c == ';' || (c == '.' && (last || text[i + 1] == ' ' || text[i + 1] == '\n')))) break;
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == '`') in_code = !in_code;
    fix += c == '\n' ? ' ' : c;
  }
  while (!fix.empty() && fix.back() == ' ') fix.pop_back();
  if (fix.starts_with("nothing")) return "";  // "Fix: nothing required ..." is no fix to show
  return fix.size() <= kLongestFix && depth == 0 && !in_code ? fix : "";
}

std::string render_text(const Report& report, const TextStyle& style, const std::vector<RuleInfo>& rules) {
  TextWriter writer(report, style, rules);
  std::ostringstream out;
  if (!style.quiet)
    out << writer.bold("kcheck " + report.tool_version) << "  policy " << report.policy_name << "  " << report.scope
        << " " << report.audited_root << "\n";
  for (const VariantSection& section : variant_sections(report)) {
    std::vector<const Finding*> listed;
    std::copy_if(section.findings.begin(), section.findings.end(), std::back_inserter(listed),
                 [&](const Finding* finding) { return shown(*finding, style); });
    if (!listed.empty()) {
      if (!style.quiet || out.tellp() > 0) out << "\n";
      out << writer.bold(section.title) << "\n";
      for (const Finding* finding : listed) out << writer.finding_line(*finding) << "\n";
    } else if (!style.quiet && section.summary &&
               section.summary->counts.errors + section.summary->counts.warnings == 0) {
      out << "\n" << writer.bold(section.title) << "  " << writer.paint("ok", "\033[32m") << "\n";
    }
  }
  if (style.quiet) return out.str();
  const SeverityCounts& counts = report.summary;
  const Report::Verdict verdict = report.verdict();
  out << harness_summary(report.dynamic);
  // A source repository's checks are not an audit of its variants: say so.
  const std::string what = report.scope == "source" ? "source checks (no variant audited: `kcheck build`, then "
                                                      "`kcheck check` audits them)"
                                                    : plural(static_cast<int>(report.variants.size()), "variant");
  out << "\n"
      << what << ", " << plural(counts.errors, "error") << ", " << plural(counts.warnings, "warning") << ", "
      << plural(counts.notes, "note");
  if (counts.suppressed) out << ", " << counts.suppressed << " suppressed";
  out << hidden_summary(counts, style);
  const char* colour = verdict == Report::Verdict::pass   ? "\033[32m"
                       : verdict == Report::Verdict::fail ? "\033[31m"
                                                          : "\033[33m";
  out << ": " << writer.paint(verdict_title(verdict), colour) << "\n";
  return out.str();
}

}  // namespace kcheck
