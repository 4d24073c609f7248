#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/core/report.h"
#include "checker/report/text_format.h"

namespace kcheck {

enum class OutputFormat { text, json };

std::optional<OutputFormat> parse_output_format(std::string_view name);
std::vector<std::string> output_format_names();

// Renders the report in the given format; every format reads only the Report.
std::string render_report(const Report& report, OutputFormat format, const TextStyle& style);

}  // namespace kcheck
