// Inline SVG bar charts of the HTML report: bars scale with their values,
// the reference line sits at its value, text is escaped.
#include "checker/report/svg_chart.h"

#include <gtest/gtest.h>

#include <regex>

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

TEST(SvgChart, BandwidthChartDrawsThePeakLineAtTheMeasuredPeak) {
  Report report = sample_bench_report();
  std::vector<VariantSection> sections = variant_sections(report);
  const VariantSection* cuda = nullptr;
  for (const VariantSection& section : sections)
    if (!section.benchmarks.empty()) cuda = &section;
  ASSERT_NE(cuda, nullptr);
  BarChart chart = bandwidth_chart(*cuda);
  ASSERT_EQ(chart.bars.size(), 4u);
  ASSERT_TRUE(chart.reference);
  EXPECT_DOUBLE_EQ(chart.reference->value, 2905.0);
  EXPECT_EQ(chart.bars[0].label, "silu_and_mul · bfloat16");
  EXPECT_NEAR(chart.bars[0].value, 402653184.0 / 155.5 / 1e3, 1e-6);
  std::string svg = render_bar_chart_svg(chart);
  EXPECT_TRUE(svg.starts_with("<svg class=\"chart-bandwidth\"")) << svg;
  // x of the peak line over x of the axis end: 2905 / 3000 of the bar span.
  std::vector<double> peak_x = attribute_values(svg, "line class=\"reference\"", "x1");
  std::vector<double> widths = attribute_values(svg, "rect class=\"bar\"", "width");
  ASSERT_EQ(peak_x.size(), 1u) << svg;
  ASSERT_EQ(widths.size(), 4u) << svg;
  double bar_left = attribute_values(svg, "rect class=\"bar\"", "x")[0];
  EXPECT_NEAR((peak_x[0] - bar_left) / widths[0], 2905.0 / chart.bars[0].value, 0.01);
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
