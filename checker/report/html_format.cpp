#include "checker/report/html_format.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "checker/support/demangle.h"
#include "checker/support/embedded_files.h"
#include "checker/report/benchmark_table.h"
#include "checker/report/mustache_data.h"
#include "checker/report/report_view.h"
#include "checker/report/svg_chart.h"
#include "checker/report/xml_escape.h"

namespace kcheck {

namespace {

using kainjow::mustache::data;

constexpr std::string_view kTemplatePath = "reports/templates/report.html.mustache";

// An id attribute value: letters, digits, '-' and '_' only.
std::string anchor(std::string_view prefix, std::string_view name) {
  std::string id(prefix);
  for (char c : name) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    id += safe ? c : '-';
  }
  return id;
}

const RuleInfo* find_rule(const std::vector<RuleInfo>& rules, const std::string& code) {
  auto found = std::find_if(rules.begin(), rules.end(), [&](const RuleInfo& rule) { return rule.code == code; });
  return found == rules.end() ? nullptr : &*found;
}

// A path (or a place holding one) as HTML that wraps only after a '/': each
// name between slashes is kept whole (a browser would break one at a '-'),
// and each '/' is followed by <wbr>.
std::string path_html(const std::string& path) {
  std::string html;
  std::size_t start = 0;
  for (std::size_t slash = path.find('/'); start <= path.size(); slash = path.find('/', start)) {
    const std::string name = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (!name.empty()) html += "<span class=\"name\">" + xml_escape(name) + "</span>";
    if (slash == std::string::npos) break;
    html += "/<wbr>";
    start = slash + 1;
  }
  return html;
}

// Where the finding applies as HTML: the place wraps after a '/', the symbol
// (demangled: the long C++ name wraps anywhere; the mangled one is the
// cell's tooltip) after it.
std::string place_html(const Finding& finding) {
  Finding place = finding;
  place.location.symbol.clear();
  std::string html = path_html(finding_place(place));
  if (!finding.location.symbol.empty())
    html += " <span class=\"symbol\">[" + xml_escape(demangle_symbol(finding.location.symbol)) + "]</span>";
  return html;
}

// A rule's explanation as HTML: paragraphs at blank lines, "- " lines as a
// list, lines indented by four spaces or more as preformatted code (a
// grammar, an example), `code` as <code>; every text escaped.
std::string explanation_html(const std::string& explanation) {
  auto inline_html = [](const std::string& text) {
    std::string out;
    bool code = false;
    std::size_t start = 0;
    for (std::size_t tick = text.find('`'); tick != std::string::npos; tick = text.find('`', start)) {
      out += xml_escape(text.substr(start, tick - start)) + (code ? "</code>" : "<code>");
      code = !code;
      start = tick + 1;
    }
    out += xml_escape(text.substr(start));
    if (code) out += "</code>";
    return out;
  };
  std::string html, paragraph, preformatted;
  std::vector<std::string> items;
  auto flush = [&] {
    if (!paragraph.empty()) html += "<p>" + inline_html(paragraph) + "</p>\n";
    if (!items.empty()) {
      html += "<ul>\n";
      for (const std::string& item : items) html += "<li>" + inline_html(item) + "</li>\n";
      html += "</ul>\n";
    }
    if (!preformatted.empty()) html += "<pre><code>" + xml_escape(preformatted) + "</code></pre>\n";
    paragraph.clear();
    items.clear();
    preformatted.clear();
  };
  std::size_t start = 0;
  while (start <= explanation.size()) {
    std::size_t end = explanation.find('\n', start);
    if (end == std::string::npos) end = explanation.size();
    const std::string line = explanation.substr(start, end - start);
    start = end + 1;
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos) {
      flush();
    } else if (indent >= 4 && (items.empty() || !preformatted.empty() || indent > 4)) {
      if (!paragraph.empty() || !items.empty()) flush();
      preformatted += line.substr(4) + "\n";
    } else if (line.starts_with("- ")) {
      if (!paragraph.empty() || !preformatted.empty()) flush();
      items.push_back(line.substr(2));
    } else if (!items.empty() && indent >= 2) {
      items.back() += " " + line.substr(indent);
    } else {
      if (!items.empty() || !preformatted.empty()) flush();
      paragraph += (paragraph.empty() ? "" : " ") + line;
    }
  }
  flush();
  return html;
}

data html_finding_data(const Finding& finding, const std::vector<RuleInfo>& rules) {
  data item = finding_data(finding);
  item.set("rule_anchor", anchor("rule-", finding.code));
  const RuleInfo* rule = find_rule(rules, finding.code);
  item.set("rule_title", rule ? rule->title : std::string());
  item.set("place_html", place_html(finding));
  // The mangled name as the cell's tooltip, where the cell shows another.
  if (try_demangle(finding.location.symbol)) item.set("mangled", finding.location.symbol);
  return item;
}

SeverityCounts section_counts(const VariantSection& section) {
  if (section.summary) return section.summary->counts;
  SeverityCounts counts;
  for (const Finding* finding : section.findings) {
    if (finding->suppressed)
      ++counts.suppressed;
    else if (finding->severity == Severity::error)
      ++counts.errors;
    else if (finding->severity == Severity::warning)
      ++counts.warnings;
    else
      ++counts.notes;
  }
  return counts;
}

// "fail", "warn" or "pass", as the gate judges the section.
std::string section_status(const SeverityCounts& counts, bool strict) {
  if (counts.errors > 0 || (strict && counts.warnings > 0)) return "fail";
  if (counts.warnings > 0) return "warn";
  return "pass";
}

// `kcheck run`'s account of the variant: run or not, each op and how it was
// verified, each test of the kernel's own suite.
void set_verification_data(data& item, const VariantSection& section) {
  item.set("has_run", section.run != nullptr);
  if (section.run) {
    item.set("run_line", section.run->ran ? plural(section.run->ops_registered, "op") + " registered, " +
                                                std::to_string(section.run->ops_verified) + " verified"
                                          : "not run: " + section.run->reason);
    item.set("run_ok", section.run->ran && section.run->ops_verified == section.run->ops_registered);
  }
  data ops{data::type::list};
  for (const OpVerification* op : section.ops) {
    data row;
    row.set("op", op->op);
    row.set("how", op->how);
    row.set("verified", op->verified);
    row.set("cases", op->how == "reference"
                         ? std::to_string(op->cases_passed) + " of " + std::to_string(op->cases_run) + " passed"
                         : std::string());
    std::string refused;
    for (const std::string& dtype : op->unsupported_dtypes) refused += (refused.empty() ? "" : ", ") + dtype;
    row.set("refused", refused);
    row.set("why", op->why);
    ops.push_back(row);
  }
  item.set("has_ops", !section.ops.empty());
  item.set("ops", ops);
  data tests{data::type::list};
  for (const TestOutcome* test : section.tests) {
    data row;
    row.set("test", test->test);
    row.set("outcome", test->outcome);
    row.set("failed", test->outcome == "failed" || test->outcome == "error");
    row.set("message", test->message);
    tests.push_back(row);
  }
  item.set("has_tests", !section.tests.empty());
  item.set("tests", tests);
}

data dynamic_data(const VariantSection& section) {
  data item;
  if (section.device) {
    item.set("device_name", section.device->name);
    item.set("device_backend", section.device->backend);
    item.set("device_peak", format_number(section.device->copy_bandwidth_gbs, 0));
    item.set("has_matmul", section.device->matmul_tflops > 0);
    item.set("matmul", format_number(section.device->matmul_tflops, section.device->matmul_tflops < 10 ? 2 : 0) +
                           " TFLOP/s (" + section.device->matmul_dtype + ")");
  }
  item.set("has_device", section.device != nullptr);
  data checks{data::type::list};
  for (const OpCheck* check : section.op_checks) checks.push_back(op_check_data(*check));
  item.set("has_op_checks", !section.op_checks.empty());
  item.set("op_checks", checks);
  set_verification_data(item, section);
  data benchmarks{data::type::list};
  for (const OpBenchmarks& group : benchmarks_by_op(section.benchmarks)) {
    data rows{data::type::list};
    for (const BenchmarkResult* result : group.results) rows.push_back(benchmark_row_data(*result));
    data notes{data::type::list};
    for (const std::string& note : benchmark_table_notes(group)) notes.push_back(data(note));
    data op;
    op.set("op", group.op);
    op.set("eager", group.eager);
    op.set("rows", rows);
    op.set("notes", notes);
    benchmarks.push_back(op);
  }
  item.set("has_benchmarks", !section.benchmarks.empty());
  item.set("benchmarks", benchmarks);
  if (!section.benchmarks.empty()) {
    item.set("bandwidth_chart", render_bar_chart_svg(bandwidth_chart(section)));
    BarChart speedups = speedup_chart(section);
    if (!speedups.bars.empty()) item.set("speedup_chart", render_bar_chart_svg(speedups));
    BarChart compile_speedups = compile_speedup_chart(section);
    if (!compile_speedups.bars.empty()) item.set("compile_speedup_chart", render_bar_chart_svg(compile_speedups));
  }
  return item;
}

// The shared sections that hold findings of this variant, as links.
data shared_with(const VariantSection& section, const std::vector<VariantSection>& sections) {
  data links{data::type::list};
  for (const VariantSection& shared : sections) {
    if (section.variant.empty() ||
        std::find(shared.shared_by.begin(), shared.shared_by.end(), section.variant) == shared.shared_by.end())
      continue;
    data link;
    link.set("title", shared.title);
    link.set("anchor", anchor("variant-", shared.title));
    links.push_back(link);
  }
  return links;
}

data section_data(const VariantSection& section, const std::vector<VariantSection>& sections, const Report& report,
                  const std::vector<RuleInfo>& rules) {
  SeverityCounts counts = section_counts(section);
  data item = counts_data(counts);
  item.set("title", section.title);
  item.set("anchor", anchor("variant-", section.title));
  item.set("backend", section.summary && !section.summary->backend.empty() ? section.summary->backend : "");
  item.set("has_backend", section.summary && !section.summary->backend.empty());
  item.set("counts_line", plural(counts.errors, "error") + " · " + plural(counts.warnings, "warning") + " · " +
                              plural(counts.notes, "note") + " · " + std::to_string(counts.suppressed) + " suppressed");
  std::string status = section_status(counts, report.strict);
  item.set("status", status);
  const bool dynamic = !section.op_checks.empty() || !section.benchmarks.empty() || section.device || section.run;
  item.set("open", status != "pass" || dynamic);  // a section with something to read starts unfolded
  const ListedFindings listed = listed_findings(section);
  data findings{data::type::list};
  for (const Finding* finding : listed.findings) findings.push_back(html_finding_data(*finding, rules));
  item.set("has_findings", !listed.findings.empty());
  item.set("findings", findings);
  item.set("has_benchmark_notes", listed.benchmark_notes > 0);
  item.set("benchmark_notes", plural(listed.benchmark_notes, "KB001 note"));
  data shared = shared_with(section, sections);
  item.set("has_shared", !shared.is_empty_list());
  item.set("shared", shared);
  item.set("has_dynamic", dynamic);
  if (dynamic) item.set("dynamic", dynamic_data(section));
  return item;
}

// The explanation, with examples, of each rule that has a finding.
data rule_explanations(const Report& report, const std::vector<RuleInfo>& rules) {
  std::set<std::string> codes;
  for (const Finding& finding : report.findings) codes.insert(finding.code);
  data list{data::type::list};
  for (const std::string& code : codes) {
    data item;
    item.set("code", code);
    item.set("anchor", anchor("rule-", code));
    const RuleInfo* rule = find_rule(rules, code);
    item.set("known", rule != nullptr);
    if (rule) {
      item.set("title", rule->title);
      item.set("severity", std::string(to_string(rule->default_severity)));
      item.set("explanation", explanation_html(rule->explanation));
      item.set("example_violation", rule->example_violation);
      item.set("example_fix", rule->example_fix);
      item.set("has_examples", !rule->example_violation.empty() || !rule->example_fix.empty());
    }
    list.push_back(item);
  }
  return list;
}

data report_data(const Report& report, const std::vector<RuleInfo>& rules) {
  const Report::Verdict verdict = report.verdict();
  data root = counts_data(report.summary);
  root.set("verdict", verdict_title(verdict));
  root.set("verdict_class", verdict == Report::Verdict::fail                              ? "fail"
                            : verdict != Report::Verdict::pass || report.summary.warnings ? "warn"
                                                                                          : "pass");
  root.set("summary_line",
           plural(static_cast<int>(report.variants.size()), "variant") + " · " +
               plural(report.summary.errors, "error") + " · " + plural(report.summary.warnings, "warning") + " · " +
               plural(report.summary.notes, "note") +
               (report.summary.suppressed ? " · " + std::to_string(report.summary.suppressed) + " suppressed" : ""));
  root.set("tool_version", report.tool_version);
  root.set("policy", report.policy_name);
  root.set("strict", report.strict);
  root.set("scope", report.scope);
  root.set("input", report.input);
  // `kcheck .`: the directory itself, not a lone dot.
  const bool here = report.input.empty() || report.input == "." || report.input == "./";
  root.set("input_html", path_html(here ? report.audited_root : report.input));
  root.set("audited_root_html", path_html(report.audited_root));
  if (!report.dynamic.empty()) root.set("seed", std::to_string(report.dynamic.seed));
  data variants{data::type::list};
  data sections{data::type::list};
  const std::vector<VariantSection> all_sections = variant_sections(report);
  for (const VariantSection& section : all_sections) {
    data item = section_data(section, all_sections, report, rules);
    if (section.summary) variants.push_back(item);
    sections.push_back(item);
  }
  root.set("has_variants", !report.variants.empty());
  root.set("variants", variants);
  root.set("sections", sections);
  root.set("has_findings", !report.findings.empty());
  root.set("rules", rule_explanations(report, rules));
  return root;
}

}  // namespace

std::string render_html(const Report& report, const std::vector<RuleInfo>& rules, std::string_view mustache_template) {
  return render_template("html", mustache_template, report_data(report, rules), xml_escape);
}

std::string render_html(const Report& report, const std::vector<RuleInfo>& rules) {
  auto embedded = find_embedded_file(kTemplatePath);
  if (!embedded) throw std::runtime_error("no embedded " + std::string(kTemplatePath));
  return render_html(report, rules, *embedded);
}

}  // namespace kcheck
