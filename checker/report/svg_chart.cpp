#include "checker/report/svg_chart.h"

#include <algorithm>
#include <cmath>

#include "checker/report/benchmark_table.h"
#include "checker/report/xml_escape.h"

namespace kcheck {

namespace {

// Geometry in SVG user units (pixels at 100% zoom).
constexpr double kWidth = 760;
constexpr double kLabelRight = 222;  // labels end here, right-aligned
constexpr double kBarLeft = 230;
constexpr double kBarSpan = 420;
constexpr double kTop = 44;  // below the title and the reference label
constexpr double kRowHeight = 26;
constexpr double kBarHeight = 16;
constexpr double kAxisHeight = 28;
constexpr double kFootnoteHeight = 20;
constexpr double kClipMarkerWidth = 8;  // the notch past the end of a bar clipped at the axis end
constexpr int kTicks = 4;
// Text widths estimated at 12px DejaVu Sans (about 7 units a character): a
// label longer than its column is shortened (whole in its tooltip), and a
// value that would run past the right edge is drawn inside its bar.
constexpr double kCharWidth = 7;
constexpr std::size_t kLabelChars = static_cast<std::size_t>(kLabelRight / kCharWidth) - 1;

// Characters, not bytes: a UTF-8 continuation byte starts none.
std::size_t characters(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string shortened_label(const std::string& label) {
  if (characters(label) <= kLabelChars) return label;
  std::string shown;
  std::size_t count = 0;
  for (char c : label) {
    if ((c & 0xC0) != 0x80 && ++count > kLabelChars - 1) break;
    shown += c;
  }
  return shown + "…";
}

std::string number(double value) { return format_number(value, 1); }

// A round upper bound for the axis (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times
// a power of ten) at least 5% above the largest value.
double axis_maximum(double largest) {
  if (!(largest > 0)) return 1;
  double target = largest * 1.05;
  double power = std::pow(10.0, std::floor(std::log10(target)));
  for (double step : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
    if (step * power >= target) return step * power;
  return 10 * power;
}

// Up to three decimals, without trailing zeros: "0.375", "0.5", "1000".
std::string tick_text(double value, const std::string& unit) {
  std::string text = format_number(value, 3);
  while (text.ends_with('0')) text.pop_back();
  if (text.ends_with('.')) text.pop_back();
  return text + unit;
}

// op (without namespace) and dtype, with the shape only when another result has the same op and dtype.
// The op's name without its namespace (the section names the variant).
std::string short_op(const std::string& op) {
  const std::size_t colons = op.rfind("::");
  return colons == std::string::npos ? op : op.substr(colons + 2);
}

std::string bar_label(const BenchmarkResult& result, const std::vector<const BenchmarkResult*>& all) {
  std::string label = short_op(result.op) + " · " + result.dtype;
  int same = 0;
  for (const BenchmarkResult* other : all) same += other->op == result.op && other->dtype == result.dtype;
  if (same > 1) label += " · " + result.shape;
  return label;
}

std::string compiled_tooltip(const BenchmarkResult& result) {
  const CompiledBaseline* fastest = fastest_timed(result.compiled);
  if (!fastest) return "";
  return ", torch.compile (" + fastest->mode + ") " + format_number(fastest->median_us, 1) + " µs, " +
         format_number(result.compile_speedup, 2) + "x";
}

std::string result_tooltip(const BenchmarkResult& result) {
  return result.op + " " + result.dtype + " [" + result.shape + "]: median " + format_number(result.median_us, 1) +
         " µs over " + std::to_string(result.repetitions) + " runs, " + format_number(result.achieved_gbs, 0) +
         " GB/s (" + format_number(result.percent_of_peak, 0) + "% of the copy roofline)" +
         (result.eager_median_us > 0
              ? ", Torch eager " + result.eager + " " + format_number(result.eager_median_us, 1) + " µs, " +
                    format_number(result.speedup, 2) + "x"
              : "") +
         compiled_tooltip(result);
}

// What the axis must reach: the reference and every bar but the call-bound
// ones, which would squash the others (every bar when all are call-bound).
double largest_scaled_value(const BarChart& chart) {
  const bool all_call_bound =
      std::all_of(chart.bars.begin(), chart.bars.end(), [](const ChartBar& bar) { return bar.call_bound; });
  double largest = chart.reference ? chart.reference->value : 0;
  for (const ChartBar& bar : chart.bars)
    if (!bar.call_bound || all_call_bound) largest = std::max(largest, bar.value);
  return largest;
}

std::string bar_classes(const ChartBar& bar) {
  return std::string("bar") + (bar.short_of_reference ? " short" : "") + (bar.call_bound ? " call-bound" : "");
}

}  // namespace

std::string render_bar_chart_svg(const BarChart& chart) {
  const double scale = axis_maximum(largest_scaled_value(chart));
  const double rows_bottom = kTop + kRowHeight * static_cast<double>(chart.bars.size());
  const double height = rows_bottom + kAxisHeight + (chart.footnote.empty() ? 0 : kFootnoteHeight);
  auto x_of = [&](double value) { return kBarLeft + kBarSpan * std::clamp(value / scale, 0.0, 1.0); };

  std::string svg = "<svg class=\"" + xml_escape(chart.css_class) + "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    number(kWidth) + "\" height=\"" + number(height) + "\" viewBox=\"0 0 " + number(kWidth) + " " +
                    number(height) + "\" role=\"img\" aria-label=\"" + xml_escape(chart.title) + "\">\n";
  svg += "<title>" + xml_escape(chart.title) + "</title>\n";
  svg += "<text class=\"chart-title\" x=\"0\" y=\"16\">" + xml_escape(chart.title) + "</text>\n";
  for (int tick = 0; tick <= kTicks; ++tick) {
    double value = scale * tick / kTicks;
    std::string x = number(x_of(value));
    svg += "<line class=\"grid\" x1=\"" + x + "\" y1=\"" + number(kTop - 4) + "\" x2=\"" + x + "\" y2=\"" +
           number(rows_bottom) + "\"/>\n";
    svg += "<text class=\"tick\" x=\"" + x + "\" y=\"" + number(rows_bottom + 16) + "\" text-anchor=\"middle\">" +
           xml_escape(tick_text(value, chart.axis_unit)) + "</text>\n";
  }
  for (std::size_t row = 0; row < chart.bars.size(); ++row) {
    const ChartBar& bar = chart.bars[row];
    double y = kTop + kRowHeight * static_cast<double>(row) + (kRowHeight - kBarHeight) / 2;
    double right = x_of(bar.value);
    svg += "<text class=\"label\" x=\"" + number(kLabelRight) + "\" y=\"" + number(y + kBarHeight - 4) +
           "\" text-anchor=\"end\"><title>" + xml_escape(bar.label) + "</title>" +
           xml_escape(shortened_label(bar.label)) + "</text>\n";
    svg += "<rect class=\"" + bar_classes(bar) + "\" x=\"" + number(kBarLeft) + "\" y=\"" + number(y) + "\" width=\"" +
           number(right - kBarLeft) + "\" height=\"" + number(kBarHeight) + "\"><title>" + xml_escape(bar.tooltip) +
           "</title></rect>\n";
    double value_left = right + 6;
    if (bar.value > scale) {  // clipped at the axis end: a notch says the bar goes on
      svg += "<polygon class=\"clip-marker\" points=\"" + number(right) + "," + number(y) + " " +
             number(right + kClipMarkerWidth) + "," + number(y + kBarHeight / 2) + " " + number(right) + "," +
             number(y + kBarHeight) + "\"><title>beyond the axis: " + xml_escape(bar.value_text) +
             "</title></polygon>\n";
      value_left += kClipMarkerWidth;
    }
    const double value_width = kCharWidth * static_cast<double>(characters(bar.value_text));
    const bool inside = value_left + value_width > kWidth;
    svg += "<text class=\"value" + std::string(inside ? " inside" : "") + "\" x=\"" +
           number(inside ? right - 6 : value_left) + "\" y=\"" + number(y + kBarHeight - 4) + "\"" +
           (inside ? " text-anchor=\"end\"" : "") + ">" + xml_escape(bar.value_text) + "</text>\n";
  }
  if (chart.reference) {
    std::string x = number(x_of(chart.reference->value));
    svg += "<line class=\"reference\" x1=\"" + x + "\" y1=\"" + number(kTop - 8) + "\" x2=\"" + x + "\" y2=\"" +
           number(rows_bottom) + "\"/>\n";
    svg += "<text class=\"reference-label\" x=\"" + x + "\" y=\"" + number(kTop - 12) + "\" text-anchor=\"middle\">" +
           xml_escape(chart.reference->label) + "</text>\n";
  }
  if (!chart.footnote.empty())
    svg += "<text class=\"footnote\" x=\"0\" y=\"" + number(rows_bottom + kAxisHeight + 14) + "\">" +
           xml_escape(chart.footnote) + "</text>\n";
  svg += "</svg>";
  return svg;
}

BarChart bandwidth_chart(const VariantSection& section) {
  BarChart chart;
  chart.css_class = "chart-bandwidth";
  const double copy = section.device ? section.device->copy_bandwidth_gbs : 0;
  const bool against_roofline =
      copy > 0 && std::any_of(section.benchmarks.begin(), section.benchmarks.end(),
                              [](const BenchmarkResult* result) { return result->percent_of_peak > 0; });
  if (against_roofline) {
    // The roofline of a memory-bound op: its bytes at the measured copy bandwidth.
    chart.title = "Achieved bandwidth as % of roofline (bytes at the measured copy bandwidth)";
    chart.axis_unit = "%";
    chart.reference = ChartReference{100.0, "100% = measured copy " + format_number(copy, 0) + " GB/s"};
  } else {
    chart.title = "Achieved bandwidth per op, dtype and size (GB/s; no copy bandwidth measured)";
    chart.axis_unit = "";
  }
  for (const BenchmarkResult* result : section.benchmarks) {
    const std::string gbs = format_number(result->achieved_gbs, 0) + " GB/s";
    chart.bars.push_back(against_roofline ? ChartBar{bar_label(*result, section.benchmarks), result->percent_of_peak,
                                                     format_number(result->percent_of_peak, 0) + "% · " + gbs,
                                                     result_tooltip(*result), false}
                                          : ChartBar{bar_label(*result, section.benchmarks), result->achieved_gbs, gbs,
                                                     result_tooltip(*result), false});
  }
  return chart;
}

namespace {

// Bars of one speed-up per result, against 1×; results without it are left
// out. `call_bound` says which bars Python's call overhead likely sets.
BarChart speedups(const VariantSection& section, double BenchmarkResult::*speedup,
                  bool (*call_bound)(const BenchmarkResult&)) {
  BarChart chart;
  for (const BenchmarkResult* result : section.benchmarks) {
    const double value = result->*speedup;
    if (!(value > 0)) continue;  // no baseline timed
    const bool bound = call_bound && call_bound(*result);
    chart.bars.push_back({bar_label(*result, section.benchmarks), value,
                          format_number(value, 2) + "×" + (bound ? kCallBoundMark : ""), result_tooltip(*result),
                          value < 1.0, bound});
  }
  if (std::any_of(chart.bars.begin(), chart.bars.end(), [](const ChartBar& bar) { return bar.call_bound; }))
    chart.footnote = std::string(kCallBoundMark) +
                     " bound by Python's per-call overhead (see under the table): drawn lighter, not setting the scale";
  chart.axis_unit = "×";
  return chart;
}

}  // namespace

BarChart speedup_chart(const VariantSection& section) {
  BarChart chart = speedups(section, &BenchmarkResult::speedup, nullptr);
  chart.css_class = "chart-speedup";
  chart.title = "Speed-up over the best eager Torch form (above 1×: faster than Torch)";
  chart.reference = ChartReference{1.0, "1× (Torch eager)"};
  return chart;
}

BarChart compile_speedup_chart(const VariantSection& section) {
  BarChart chart = speedups(section, &BenchmarkResult::compile_speedup, compile_speedup_call_bound);
  chart.css_class = "chart-compile-speedup";
  chart.title = "Speed-up over torch.compile of the same form, fastest mode (above 1×: faster)";
  chart.reference = ChartReference{1.0, "1× (torch.compile)"};
  return chart;
}

}  // namespace kcheck
