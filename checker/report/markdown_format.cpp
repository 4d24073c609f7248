#include "checker/report/markdown_format.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

#include <kainjow/mustache.hpp>

#include "checker/core/embedded_files.h"

namespace kcheck {

namespace {

using kainjow::mustache::data;
using kainjow::mustache::mustache;

constexpr std::string_view kTemplatePath = "reports/templates/report.md.mustache";

std::string plural(int count, const std::string& word) {
  return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

std::string place_of(const Finding& finding) {
  std::string place = finding.file.empty() ? "." : finding.file;
  if (finding.location.line) place += ":" + std::to_string(finding.location.line);
  if (!finding.location.json_pointer.empty()) place += " " + finding.location.json_pointer;
  if (!finding.location.symbol.empty()) place += " [" + finding.location.symbol + "]";
  return place;
}

data finding_data(const Finding& finding) {
  data item;
  item.set("severity", std::string(to_string(finding.severity)));
  item.set("code", finding.code);
  item.set("place", place_of(finding));
  item.set("message", finding.message);
  item.set("suppressed", finding.suppressed);
  item.set("reason", finding.suppression_reason);
  return item;
}

data counts_data(const SeverityCounts& counts) {
  data item;
  item.set("errors", std::to_string(counts.errors));
  item.set("warnings", std::to_string(counts.warnings));
  item.set("notes", std::to_string(counts.notes));
  item.set("suppressed", std::to_string(counts.suppressed));
  return item;
}

data variant_data(const VariantSummary& variant, bool strict) {
  data item = counts_data(variant.counts);
  item.set("name", variant.name);
  item.set("backend", variant.backend.empty() ? "?" : variant.backend);
  const SeverityCounts& counts = variant.counts;
  item.set("clean", counts.errors + counts.warnings + counts.notes == 0);
  item.set("failing", counts.errors > 0 || (strict && counts.warnings > 0));
  return item;
}

// Findings grouped as the text output groups them: tree-level first, then
// each variant in the report's order.
data groups_data(const Report& report) {
  std::map<std::string, data> findings_by_variant;
  for (const Finding& finding : report.findings) {
    auto [entry, added] = findings_by_variant.try_emplace(finding.variant, data::type::list);
    entry->second.push_back(finding_data(finding));
  }
  std::vector<std::string> order;
  if (findings_by_variant.contains("")) order.push_back("");
  for (const VariantSummary& variant : report.variants)
    if (!variant.name.empty() && findings_by_variant.contains(variant.name)) order.push_back(variant.name);
  for (const auto& [variant, findings] : findings_by_variant)  // variants the report does not list
    if (std::find(order.begin(), order.end(), variant) == order.end()) order.push_back(variant);
  data groups{data::type::list};
  for (const std::string& variant : order) {
    data group;
    group.set("title", variant.empty() ? (report.scope == "module" ? "module" : "tree") : variant);
    group.set("findings", findings_by_variant.at(variant));
    groups.push_back(group);
  }
  return groups;
}

data report_data(const Report& report) {
  const SeverityCounts& counts = report.summary;
  bool passes = report.gate_status() == 0;
  data root;
  root.set("verdict", passes ? "PASS" : "FAIL");
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
  data groups = groups_data(report);
  if (!groups.is_empty_list()) root.set("groups", groups);
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
  mustache renderer{std::string(mustache_template)};
  if (!renderer.is_valid()) throw std::runtime_error("markdown template: " + renderer.error_message());
  renderer.set_custom_escape([](const std::string& text) { return markdown_escape(text); });
  return collapse_blank_lines(renderer.render(report_data(report)));
}

std::string render_markdown(const Report& report) {
  auto embedded = find_embedded_file(kTemplatePath);
  if (!embedded) throw std::runtime_error("no embedded " + std::string(kTemplatePath));
  return render_markdown(report, *embedded);
}

}  // namespace kcheck
