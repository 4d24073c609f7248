#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "checker/core/report.h"
#include "checker/core/rule.h"

namespace kcheck {

// One self-contained HTML page (inline CSS and SVG, no scripts, no external
// assets) from the embedded reports/templates/report.html.mustache: the
// verdict, counts, a variant table, one folding <details> section per variant
// with its findings, op checks, benchmark table and charts (achieved bandwidth
// against the device's measured peak, speed-up against the reference), and
// the explanation with examples of every rule that has a finding, from `rules`.
std::string render_html(const Report& report, const std::vector<RuleInfo>& rules);

// The same from a template of the caller's (throws std::runtime_error when the
// template does not parse).
std::string render_html(const Report& report, const std::vector<RuleInfo>& rules, std::string_view mustache_template);

}  // namespace kcheck
