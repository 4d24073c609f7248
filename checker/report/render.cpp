#include "checker/report/render.h"

#include <array>

#include "checker/report/display_text.h"
#include "checker/report/html_format.h"
#include "checker/report/junit_format.h"
#include "checker/report/line_formats.h"
#include "checker/report/markdown_format.h"
#include "checker/report/sarif_format.h"

namespace kcheck {

namespace {

constexpr std::array<OutputFormatInfo, 8> kFormats{{
    {OutputFormat::text, "text", "txt", false},
    {OutputFormat::json, "json", "json", true},
    {OutputFormat::sarif, "sarif", "sarif", true},
    {OutputFormat::junit, "junit", "xml", true},
    {OutputFormat::markdown, "markdown", "md", false},
    {OutputFormat::html, "html", "html", false},
    {OutputFormat::github, "github", "txt", false},
    {OutputFormat::concise, "concise", "txt", false},
}};

}  // namespace

std::optional<OutputFormatInfo> find_output_format(std::string_view name) {
  for (const OutputFormatInfo& format : kFormats)
    if (name == format.name) return format;
  return std::nullopt;
}

std::vector<std::string> output_format_names() {
  std::vector<std::string> names;
  names.reserve(kFormats.size());
  for (const OutputFormatInfo& format : kFormats) names.emplace_back(format.name);
  return names;
}

std::vector<RuleInfo> rule_catalogue(const RuleRegistry& registry) {
  std::vector<RuleInfo> catalogue;
  for (const Rule* rule : registry.rules()) catalogue.push_back(rule->info());
  return catalogue;
}

std::string render_report(const Report& report, OutputFormat format, const RenderOptions& options) {
  switch (format) {
    // The human formats (and JUnit, which CI shows to humans) render a copy in
    // which upload text can neither forge lines nor drive a terminal.
    case OutputFormat::text:
      return render_text(display_safe_report(report), options.text, options.rules);
    // Paths and symbol names come from the upload and need not be UTF-8: the
    // bad bytes become U+FFFD rather than an exception (exit 2).
    case OutputFormat::json:
      return report_to_json(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    case OutputFormat::sarif:
      return render_sarif(report, options.rules, options.source_root, options.rules_url)
                 .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
             "\n";
    case OutputFormat::junit:
      return render_junit(display_safe_report(report));
    case OutputFormat::markdown:
      return render_markdown(display_safe_report(report));
    case OutputFormat::html:
      return render_html(display_safe_report(report), options.rules);
    case OutputFormat::github:
      return render_github(report, options.source_root, options.text.least_shown);
    case OutputFormat::concise:
      return render_concise(report, options.source_root, options.text.least_shown);
  }
  return {};
}

}  // namespace kcheck
