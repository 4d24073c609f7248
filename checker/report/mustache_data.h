#pragma once
// What the Markdown and HTML reports give their templates alike
// (reports/templates/*.mustache): a finding, a count of findings, an op's
// check; and the rendering of a template itself.
#include <string>
#include <string_view>

#include <kainjow/mustache.hpp>

#include "checker/core/report.h"

namespace kcheck {

// severity, code, message, suppressed, reason: each format adds where it is.
kainjow::mustache::data finding_data(const Finding& finding);

// errors, warnings, notes, suppressed.
kainjow::mustache::data counts_data(const SeverityCounts& counts);

// variant, op, dtype, shape, max_abs_error, relative_error, passed.
kainjow::mustache::data op_check_data(const OpCheck& check);

// Renders `mustache_template` with `values`, every {{value}} through
// `escape` (the format's own: XML for HTML, Markdown's); a template that does
// not parse is kcheck's own bug: std::runtime_error naming the format.
std::string render_template(std::string_view format, std::string_view mustache_template,
                            const kainjow::mustache::data& values, std::string (*escape)(std::string_view));

}  // namespace kcheck
