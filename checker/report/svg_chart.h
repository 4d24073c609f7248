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
  // Python's per-call overhead, not the device, likely sets it
  // (BenchmarkResult::python_call_bound): drawn lighter, and left out of the
  // axis scale, so that it cannot squash the other bars; beyond the axis it
  // is clipped at the end, with a marker.
  bool call_bound = false;
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
  std::string footnote;  // under the axis, when not empty
};

// The <svg> element; every text in it is escaped.
std::string render_bar_chart_svg(const BarChart& chart);

// Achieved bandwidth per op, dtype and size as % of the roofline, against
// 100%: the roofline of a memory-bound op is its bytes at the device's
// measured copy bandwidth (each bar's text gives its GB/s too). In GB/s, with
// no reference, when no copy bandwidth was measured.
BarChart bandwidth_chart(const VariantSection& section);

// Speed-up over the eager Torch baseline per op and dtype, against 1x.
BarChart speedup_chart(const VariantSection& section);

// Speed-up over the baseline's fastest torch.compile mode, against 1x; a
// call-bound result is marked as the Markdown marks it (kCallBoundMark).
BarChart compile_speedup_chart(const VariantSection& section);

}  // namespace kcheck
