#include "checker/report/markdown_format.h"

#include <stdexcept>
#include <vector>

#include "checker/support/embedded_files.h"
#include "checker/report/benchmark_table.h"
#include "checker/report/mustache_data.h"
#include "checker/report/report_view.h"

namespace kcheck {

namespace {

using kainjow::mustache::data;

constexpr std::string_view kTemplatePath = "reports/templates/report.md.mustache";

data markdown_finding_data(const Finding& finding) {
  data item = finding_data(finding);
  item.set("place", finding_place(finding));
  return item;
}

data variant_data(const VariantSummary& variant, bool strict) {
  data item = counts_data(variant.counts);
  item.set("name", variant.name);
  item.set("backend", variant.backend.empty() ? "?" : variant.backend);
  const SeverityCounts& counts = variant.counts;
  item.set("clean", counts.errors + counts.warnings == 0);  // notes inform: a note-only variant is clean
  item.set("failing", counts.errors > 0 || (strict && counts.warnings > 0));
  return item;
}

// Findings grouped as the text output groups them: tree-level first, then
// each variant in the report's order.
data groups_data(const std::vector<VariantSection>& sections) {
  data groups{data::type::list};
  for (const VariantSection& section : sections) {
    if (section.findings.empty()) continue;
    const ListedFindings listed = listed_findings(section);
    data findings{data::type::list};
    for (const Finding* finding : listed.findings) findings.push_back(markdown_finding_data(*finding));
    data group;
    group.set("title", section.title);
    group.set("findings", findings);
    group.set("has_benchmark_notes", listed.benchmark_notes > 0);
    group.set("benchmark_notes", plural(listed.benchmark_notes, "KB001 note"));
    groups.push_back(group);
  }
  return groups;
}

data device_data(const DeviceLimits& device) {
  data item;
  item.set("variant", device.variant);
  item.set("name", device.name);
  item.set("backend", device.backend);
  item.set("copy_bandwidth", format_number(device.copy_bandwidth_gbs, 0));
  item.set("has_matmul", device.matmul_tflops > 0);
  item.set("matmul", format_number(device.matmul_tflops, device.matmul_tflops < 10 ? 2 : 0) + " TFLOP/s (" +
                         device.matmul_dtype + ")");
  return item;
}

// What `kcheck run` did with each variant, op and test of the kernel's own suite.
void set_verification_data(data& root, const DynamicResults& dynamic) {
  data runs{data::type::list};
  for (const VariantRun& run : dynamic.runs) {
    data item;
    item.set("variant", run.variant);
    item.set("ran", run.ran);
    item.set("reason", run.reason);
    item.set("ops_registered", std::to_string(run.ops_registered));
    item.set("ops_verified", std::to_string(run.ops_verified));
    runs.push_back(item);
  }
  data ops{data::type::list};
  for (const OpVerification& op : dynamic.ops) {
    data item;
    item.set("variant", op.variant);
    item.set("op", op.op);
    item.set("how", op.how);
    item.set("verified", op.verified);
    item.set("cases", op.how == "reference" ? std::to_string(op.cases_passed) + " of " + std::to_string(op.cases_run)
                                            : std::string("-"));
    std::string refused;
    for (const std::string& dtype : op.unsupported_dtypes) refused += (refused.empty() ? "" : ", ") + dtype;
    item.set("refused", refused.empty() ? std::string("-") : refused);
    item.set("why",
             op.why.empty() ? std::string("-") : op.why + (op.reported_as.empty() ? "" : " (" + op.reported_as + ")"));
    ops.push_back(item);
  }
  data tests{data::type::list};
  for (const TestOutcome& test : dynamic.tests) {
    data item;
    item.set("variant", test.variant);
    item.set("test", test.test);
    item.set("outcome", test.outcome);
    item.set("failed", test.outcome == "failed" || test.outcome == "error");
    item.set("message", test.message);
    tests.push_back(item);
  }
  root.set("has_runs", !runs.is_empty_list());
  root.set("runs", runs);
  root.set("ops_summary", plural(dynamic.ops_registered(), "op") + " registered, " +
                              std::to_string(dynamic.ops_verified()) + " verified");
  root.set("has_ops", !ops.is_empty_list());
  root.set("ops", ops);
  root.set("has_tests", !tests.is_empty_list());
  root.set("tests", tests);
}

// Devices, op checks and benchmark results (`kcheck bench`), when present.
void set_dynamic_data(data& root, const DynamicResults& dynamic) {
  if (dynamic.empty()) return;
  set_verification_data(root, dynamic);
  data devices{data::type::list};
  for (const DeviceLimits& device : dynamic.devices) devices.push_back(device_data(device));
  data checks{data::type::list};
  for (const OpCheck& check : dynamic.op_checks) checks.push_back(op_check_data(check));
  std::vector<const BenchmarkResult*> results;
  for (const BenchmarkResult& result : dynamic.benchmarks) results.push_back(&result);
  data benchmarks{data::type::list};
  for (const OpBenchmarks& group : benchmarks_by_op(results)) {
    data rows{data::type::list};
    for (const BenchmarkResult* result : group.results) rows.push_back(benchmark_row_data(*result));
    data notes{data::type::list};
    for (const std::string& note : benchmark_table_notes(group)) notes.push_back(data(note));
    data op;
    op.set("variant", group.variant);
    op.set("op", group.op);
    op.set("eager", group.eager);
    op.set("rows", rows);
    op.set("notes", notes);
    op.set("chart", benchmark_text_chart(group));
    benchmarks.push_back(op);
  }
  root.set("has_dynamic", true);
  root.set("seed", std::to_string(dynamic.seed));
  root.set("devices", devices);
  root.set("has_op_checks", !checks.is_empty_list());
  root.set("op_checks", checks);
  root.set("has_benchmarks", !benchmarks.is_empty_list());
  root.set("benchmarks", benchmarks);
}

data report_data(const Report& report) {
  const SeverityCounts& counts = report.summary;
  bool passes = report.verdict() == Report::Verdict::pass;
  data root;
  root.set("verdict", verdict_title(report.verdict()));
  root.set("verdict_icon", passes ? "✅" : report.verdict() == Report::Verdict::fail ? "❌" : "⚠️");
  root.set("passes", passes);
  root.set("variant_count", plural(static_cast<int>(report.variants.size()), "variant"));
  root.set("errors", plural(counts.errors, "error"));
  root.set("warnings", plural(counts.warnings, "warning"));
  root.set("notes", plural(counts.notes, "note"));
  if (counts.suppressed) root.set("suppressed", std::to_string(counts.suppressed) + " suppressed");
  root.set("summary", counts_data(counts));
  root.set("tool_version", report.tool_version);
  root.set("policy", report.policy_name);
  root.set("strict", report.strict);
  root.set("scope", report.scope);
  root.set("input", report.input);
  data variants{data::type::list};
  for (const VariantSummary& variant : report.variants) variants.push_back(variant_data(variant, report.strict));
  root.set("has_variants", !report.variants.empty());
  root.set("variants", variants);
  data groups = groups_data(variant_sections(report));
  if (!groups.is_empty_list()) root.set("groups", groups);
  set_dynamic_data(root, report.dynamic);
  return root;
}

// Sections the template skips leave their line breaks behind: keep at most one
// blank line in a row, and end with one line break.
std::string collapse_blank_lines(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' && out.ends_with("\n\n")) continue;
    out += c;
  }
  while (out.ends_with("\n\n")) out.pop_back();
  return out;
}

}  // namespace

std::string markdown_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (std::string_view("\\`*_[]<>|~&").find(c) != std::string_view::npos) {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

std::string render_markdown(const Report& report, std::string_view mustache_template) {
  return collapse_blank_lines(render_template("markdown", mustache_template, report_data(report), markdown_escape));
}

std::string render_markdown(const Report& report) {
  auto embedded = find_embedded_file(kTemplatePath);
  if (!embedded) throw std::runtime_error("no embedded " + std::string(kTemplatePath));
  return render_markdown(report, *embedded);
}

}  // namespace kcheck
