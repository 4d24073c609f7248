#include "checker/report/render.h"

namespace kcheck {

std::optional<OutputFormat> parse_output_format(std::string_view name) {
  if (name == "text") return OutputFormat::text;
  if (name == "json") return OutputFormat::json;
  return std::nullopt;
}

std::vector<std::string> output_format_names() { return {"text", "json"}; }

std::string render_report(const Report& report, OutputFormat format, const TextStyle& style) {
  switch (format) {
    case OutputFormat::text: return render_text(report, style);
    case OutputFormat::json: return report_to_json(report).dump(2) + "\n";
  }
  return {};
}

}  // namespace kcheck
