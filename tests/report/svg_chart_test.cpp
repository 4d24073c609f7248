// Inline SVG bar charts of the HTML report: bars scale with their values,
// the reference line sits at its value, text is escaped.
#include "checker/report/xml_escape.h"
#include "checker/report/svg_chart.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>

#include "checker/report/benchmark_table.h"
#include "tests/report/report_test_support.h"

namespace kcheck {
namespace {

using namespace kcheck::testing;

// The numeric attribute `name` of every element matching `element` (in order).
std::vector<double> attribute_values(const std::string& svg, const std::string& element, const std::string& name) {
  std::vector<double> values;
  std::regex pattern("<" + element + "[^>]* " + name + "=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), pattern); it != std::sregex_iterator(); ++it)
    values.push_back(std::stod((*it)[1]));
  return values;
}

TEST(SvgChart, BarWidthsAreProportionalToValues) {
  BarChart chart{"chart-test", "title", "", {{"a", 100, "100", "", false}, {"b", 50, "50", "", false}}, std::nullopt};
  std::string svg = render_bar_chart_svg(chart);
  std::vector<double> widths = attribute_values(svg, "rect class=\"bar\"", "width");
  ASSERT_EQ(widths.size(), 2u) << svg;
  EXPECT_NEAR(widths[0], 2 * widths[1], 0.2);
  EXPECT_GT(widths[0], 300);  // the axis rounds 100 up to 120
}

// Nothing is drawn over something else: a label longer than its column is
// shortened (the whole label is its tooltip), and a value that would run
// past the right edge is written inside the end of its bar.
TEST(SvgChart, LongLabelsAreShortenedAndValuesStayInsideTheChart) {
  const std::string label = "rms_norm · bfloat16 · [16384, 8192] with a very long qualifier";
  BarChart chart{"chart-test",
                 "title",
                 "",
                 {{label, 100, "2905 GB/s (95%) of the copy", "", false}, {"b", 5, "5", "", false}},
                 std::nullopt};
  const std::string svg = render_bar_chart_svg(chart);
  EXPECT_NE(svg.find("<title>" + xml_escape(label) + "</title>rms_norm · bfloat16 · [16384,…</text>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<text class=\"value inside\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("text-anchor=\"end\">2905 GB/s (95%) of the copy</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("<text class=\"value\" x=\""), std::string::npos) << "the short bar's value stays outside\n"
                                                                       << svg;
}

// Without a measured copy bandwidth there is no roofline: the bars are the
// achieved GB/s, with no reference line.
TEST(SvgChart, WithoutAMeasuredCopyBandwidthTheBandwidthChartIsInGbPerSecond) {
  Report report = sample_bench_report();
  for (BenchmarkResult& result : report.dynamic.benchmarks) result.percent_of_peak = 0;
  std::vector<VariantSection> sections = variant_sections(report);
  BarChart chart = bandwidth_chart(sections.back());
  ASSERT_EQ(chart.bars.size(), 4u);
  EXPECT_FALSE(chart.reference);
  EXPECT_EQ(chart.bars[0].label, "silu_and_mul · bfloat16");
  EXPECT_NEAR(chart.bars[0].value, 402653184.0 / 155.5 / 1e3, 1e-6);
  EXPECT_EQ(chart.bars[0].value_text, "2589 GB/s");
  const std::string svg = render_bar_chart_svg(chart);
  EXPECT_TRUE(svg.starts_with("<svg class=\"chart-bandwidth\"")) << svg;
  EXPECT_EQ(attribute_values(svg, "line class=\"reference\"", "x1").size(), 0u) << svg;
}

TEST(SvgChart, SpeedupChartMarksResultsSlowerThanTheReference) {
  Report report = sample_bench_report();
  report.dynamic.benchmarks[1].speedup = 0.8;
  report.dynamic.benchmarks[2].speedup = 0;  // no baseline timed: no bar
  std::vector<VariantSection> sections = variant_sections(report);
  BarChart chart = speedup_chart(sections.back());
  ASSERT_EQ(chart.bars.size(), 3u);
  EXPECT_FALSE(chart.bars[0].short_of_reference);
  EXPECT_TRUE(chart.bars[1].short_of_reference);
  std::string svg = render_bar_chart_svg(chart);
  EXPECT_EQ(svg.find("<rect class=\"bar short\""), svg.rfind("<rect class=\"bar short\"")) << "exactly one";
  EXPECT_NE(svg.find("<rect class=\"bar short\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("1× (Torch eager)"), std::string::npos) << svg;
}

TEST(SvgChart, CompileSpeedupBarsOnlyWhereAModeWasTimed) {
  Report report = sample_bench_report();
  auto sections = variant_sections(report);
  BarChart chart = compile_speedup_chart(sections.back());
  ASSERT_EQ(chart.bars.size(), 3u) << "gelu_and_mul bfloat16 was not compiled";
  EXPECT_NEAR(chart.bars[0].value, 171.0 / 155.5, 1e-9) << "the fastest mode";
  EXPECT_TRUE(chart.bars[2].short_of_reference) << "torch.compile is faster there";
  ASSERT_TRUE(chart.reference);
  EXPECT_DOUBLE_EQ(chart.reference->value, 1.0);
  EXPECT_NE(chart.bars[0].tooltip.find("torch.compile (max-autotune-no-cudagraphs) 171.0 µs"), std::string::npos)
      << chart.bars[0].tooltip;
}

// The bandwidth chart: one bar per op, dtype and size at its % of the
// roofline (its bytes at the measured copy bandwidth), its GB/s beside, with
// the 100% line where the copy bandwidth is.
TEST(SvgChart, BandwidthChartDrawsEachResultAsPercentOfTheRoofline) {
  Report report = sample_bench_report();
  report.dynamic.benchmarks[1].dtype = "bfloat16";  // two sizes of one op and dtype: the size is named
  report.dynamic.benchmarks[1].shape = "1024x1024";
  std::vector<VariantSection> sections = variant_sections(report);
  BarChart chart = bandwidth_chart(sections.back());
  ASSERT_EQ(chart.bars.size(), 4u);
  ASSERT_TRUE(chart.reference);
  EXPECT_DOUBLE_EQ(chart.reference->value, 100.0);
  EXPECT_EQ(chart.axis_unit, "%");
  EXPECT_EQ(chart.bars[0].label, "silu_and_mul · bfloat16 · 16384x16384");
  EXPECT_EQ(chart.bars[1].label, "silu_and_mul · bfloat16 · 1024x1024");
  // 402653184 bytes in 155.5 us against 2905 GB/s: 89%.
  EXPECT_NEAR(chart.bars[0].value, 100.0 * 402653184.0 / 155.5 / 1e3 / 2905.0, 1e-9);
  EXPECT_EQ(chart.bars[0].value_text, "89% · 2589 GB/s");
  const std::string svg = render_bar_chart_svg(chart);
  EXPECT_TRUE(svg.starts_with("<svg class=\"chart-bandwidth\"")) << svg;
  EXPECT_NE(svg.find("100% = measured copy 2905 GB/s"), std::string::npos) << svg;
  // The 100% line over the first bar's end: 100 / 89 of its width from the bars' left edge.
  const double bar_left = attribute_values(svg, "rect class=\"bar\"", "x").at(0);
  const double line_x = attribute_values(svg, "line class=\"reference\"", "x1").at(0);
  const double width = attribute_values(svg, "rect class=\"bar\"", "width").at(0);
  EXPECT_NEAR((line_x - bar_left) / width, 100.0 / chart.bars[0].value, 0.01) << svg;
}

// A call-bound bar (as the Markdown marks it) is marked, drawn lighter and
// sets no axis: an 11x call-bound bar does not squash the meaningful 0.9x ones,
// it is clipped at the axis end with a marker.
TEST(SvgChart, CallBoundBarsAreMarkedAndDoNotSetTheAxis) {
  BarChart chart{"chart-test",
                 "title",
                 "×",
                 {{"a", 0.9, "0.90×", "", true}, {"b", 11.0, "11.00×¹", "", false}, {"c", 0.8, "0.80×", "", true}},
                 ChartReference{1.0, "1×"}};
  chart.bars[1].call_bound = true;
  const std::string unmarked_svg = [&] {
    BarChart unmarked = chart;
    unmarked.bars[1].call_bound = false;
    return render_bar_chart_svg(unmarked);
  }();
  const std::string svg = render_bar_chart_svg(chart);
  // The axis ends at 1.2 (1x plus 5%, rounded up), not at 12.
  EXPECT_NE(svg.find(">1.2×</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find(">12×</text>"), std::string::npos) << svg;
  EXPECT_NE(unmarked_svg.find(">12×</text>"), std::string::npos) << "unmarked, it sets the axis\n" << unmarked_svg;
  const std::vector<double> widths = attribute_values(svg, "rect class=\"bar[^\"]*\"", "width");
  ASSERT_EQ(widths.size(), 3u) << svg;
  EXPECT_NEAR(widths[0] / widths[2], 0.9 / 0.8, 0.01);
  EXPECT_NEAR(widths[0], 0.9 / 1.2 * widths[1], 0.2) << "clipped at the axis end\n" << svg;
  EXPECT_NE(svg.find("<rect class=\"bar call-bound\""), std::string::npos) << svg;
  EXPECT_EQ(svg.find("call-bound"), svg.rfind("call-bound")) << "only that bar\n" << svg;
  EXPECT_NE(svg.find("<polygon class=\"clip-marker\""), std::string::npos) << svg;
  EXPECT_EQ(svg.find("clip-marker"), svg.rfind("clip-marker")) << "one marker\n" << svg;
  EXPECT_EQ(unmarked_svg.find("clip-marker"), std::string::npos) << unmarked_svg;
  EXPECT_NE(svg.find(">11.00×¹</text>"), std::string::npos) << "the value is written whole\n" << svg;

  // When every bar is call-bound they set the axis: nothing else to show.
  for (ChartBar& bar : chart.bars) bar.call_bound = true;
  EXPECT_NE(render_bar_chart_svg(chart).find(">12×</text>"), std::string::npos);
}

TEST(SvgChart, CompileSpeedupChartMarksTheCallBoundResultAsTheMarkdownDoes) {
  Report report = sample_bench_report();
  // gelu_and_mul float32 is call-bound (Python slows its eager form 1.5x); make it look 11x faster.
  report.dynamic.benchmarks[3].compiled[0].median_us = 11 * report.dynamic.benchmarks[3].median_us;
  report.dynamic.benchmarks[3].compile_speedup = 11;
  std::vector<VariantSection> sections = variant_sections(report);
  BarChart chart = compile_speedup_chart(sections.back());
  ASSERT_EQ(chart.bars.size(), 3u);
  EXPECT_FALSE(chart.bars[0].call_bound);
  EXPECT_FALSE(chart.bars[1].call_bound);
  EXPECT_TRUE(chart.bars[2].call_bound);
  EXPECT_EQ(chart.bars[2].value_text, "11.00×" + std::string(kCallBoundMark));
  EXPECT_EQ(chart.bars[0].value_text, "1.10×");
  EXPECT_NE(chart.footnote.find("Python's per-call overhead"), std::string::npos) << chart.footnote;
  const std::string svg = render_bar_chart_svg(chart);
  EXPECT_NE(svg.find(">1.2×</text>"), std::string::npos) << "the 1.10x bar sets the axis\n" << svg;
  EXPECT_NE(svg.find("<text class=\"footnote\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("<polygon class=\"clip-marker\""), std::string::npos) << svg;
  // The eager speed-ups are timed from C++ on both sides: none is call-bound.
  BarChart eager = speedup_chart(sections.back());
  EXPECT_TRUE(std::none_of(eager.bars.begin(), eager.bars.end(), [](const ChartBar& bar) { return bar.call_bound; }));
  EXPECT_TRUE(eager.footnote.empty());
}

TEST(SvgChart, LabelsAreEscaped) {
  BarChart chart{"chart-test", "<b>&", "", {{"<op>", 1, "\"1\"", "it's", false}}, ChartReference{1, "a<b"}};
  std::string svg = render_bar_chart_svg(chart);
  EXPECT_EQ(svg.find("<b>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("<op>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("&lt;b&gt;&amp;"), std::string::npos) << svg;
  EXPECT_NE(svg.find("it&#39;s"), std::string::npos) << svg;
  EXPECT_NE(svg.find("a&lt;b"), std::string::npos) << svg;
}

TEST(SvgChart, SameOpAndDtypeInTwoShapesNamesTheShape) {
  Report report = sample_bench_report();
  report.dynamic.benchmarks[1].dtype = "bfloat16";
  report.dynamic.benchmarks[1].shape = "1024x1024";
  report.dynamic.benchmarks[2].op = "_activation_cuda_1a2b3c4::gelu_and_mul";  // the namespace is left out
  std::vector<VariantSection> sections = variant_sections(report);
  BarChart chart = bandwidth_chart(sections.back());
  EXPECT_EQ(chart.bars[0].label, "silu_and_mul · bfloat16 · 16384x16384");
  EXPECT_EQ(chart.bars[1].label, "silu_and_mul · bfloat16 · 1024x1024");
  EXPECT_EQ(chart.bars[2].label, "gelu_and_mul · bfloat16");
}

}  // namespace
}  // namespace kcheck
