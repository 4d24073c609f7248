#include "checker/report/mustache_data.h"

#include <stdexcept>

#include "checker/report/report_view.h"

namespace kcheck {

using kainjow::mustache::data;

data finding_data(const Finding& finding) {
  data item;
  item.set("severity", std::string(to_string(finding.severity)));
  item.set("code", finding.code);
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

data op_check_data(const OpCheck& check) {
  data item;
  item.set("variant", check.variant);
  item.set("op", check.op);
  item.set("dtype", check.dtype);
  item.set("shape", check.shape);
  item.set("max_abs_error", format_number(check.max_abs_error, 4));
  item.set("relative_error", format_number(check.relative_error, 4));
  item.set("passed", check.passed);
  return item;
}

std::string render_template(std::string_view format, std::string_view mustache_template, const data& values,
                            std::string (*escape)(std::string_view)) {
  kainjow::mustache::mustache renderer{std::string(mustache_template)};
  if (!renderer.is_valid()) throw std::runtime_error(std::string(format) + " template: " + renderer.error_message());
  renderer.set_custom_escape(escape);
  return renderer.render(values);
}

}  // namespace kcheck
