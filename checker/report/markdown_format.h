#pragma once
#include <string>
#include <string_view>

#include "checker/core/report.h"

namespace kcheck {

// A Markdown summary fit for a pull-request comment or a kernel card (verdict,
// counts per severity, a table of variants, the findings grouped by variant),
// rendered with mustache from the embedded reports/templates/report.md.mustache.
std::string render_markdown(const Report& report);

// The same from a template of the caller's (throws std::runtime_error when the
// template does not parse).
std::string render_markdown(const Report& report, std::string_view mustache_template);

// Escapes text so Markdown shows it literally, on one line and inside a table cell.
std::string markdown_escape(std::string_view text);

}  // namespace kcheck
