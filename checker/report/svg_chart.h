#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/report/report_view.h"

namespace kcheck {

// A horizontal bar chart drawn as inline SVG (the HTML report has no scripts
// and no external assets).
struct ChartBar {
  std::string label;  // left of the bar
  double value = 0;
  std::string value_text;           // right of the bar
  std::string tooltip;              // <title> of the bar
  bool short_of_reference = false;  // drawn in the warning colour
};

// A vertical line across the bars: the device's measured peak, or 1x.
struct ChartReference {
  double value = 0;
  std::string label;
};

struct BarChart {
  std::string css_class;  // "chart-bandwidth", "chart-speedup": what the page and its test find
  std::string title;
  std::string axis_unit;  // after the tick values: " GB/s", "x"
  std::vector<ChartBar> bars;
  std::optional<ChartReference> reference;
};

// The <svg> element; every text in it is escaped.
std::string render_bar_chart_svg(const BarChart& chart);

// Achieved bandwidth per op and dtype against the device's measured copy bandwidth.
BarChart bandwidth_chart(const VariantSection& section);

// Speed-up over the eager Torch baseline per op and dtype, against 1x.
BarChart speedup_chart(const VariantSection& section);

// Speed-up over the baseline's fastest torch.compile mode, against 1x.
BarChart compile_speedup_chart(const VariantSection& section);

// Escapes &, <, >, " and ' for XML and HTML text and attributes.
std::string xml_escape(std::string_view text);

}  // namespace kcheck
