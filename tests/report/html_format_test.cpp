// HTML output from reports/templates/report.html.mustache: one self-contained
// page with the verdict, folding variant sections, findings with their rule's
// explanation, and the benchmark charts as inline SVG.
#include "checker/report/xml_escape.h"
#include "checker/report/html_format.h"

#include <gtest/gtest.h>

#include <regex>

#include "checker/audit/audit.h"
#include "checker/report/render.h"
#include "checker/report/svg_chart.h"
#include "tests/report/report_test_support.h"

namespace kcheck {
namespace {

using namespace kcheck::testing;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

std::vector<RuleInfo> catalogue() { return rule_catalogue(make_rule_registry()); }

TEST(HtmlFormat, VerdictCountsAndOneFoldingSectionPerVariant) {
  std::string html = render_html(sample_report(), catalogue());
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>")) << html.substr(0, 200);
  EXPECT_TRUE(contains(html, "<h1>kcheck: FAIL</h1>")) << html;
  EXPECT_TRUE(contains(html, "2 variants · 3 errors · 1 warning · 0 notes · 1 suppressed")) << html;
  // Tree-level findings, then each variant: a <details> each, failing ones unfolded.
  EXPECT_EQ(count(html, "<details class=\"variant\""), 3u);
  EXPECT_TRUE(contains(html, "<details class=\"variant\" id=\"variant-tree\" open>")) << html;
  EXPECT_TRUE(contains(html, "<details class=\"variant\" id=\"variant-torch212-cxx11-cpu-x86_64-linux\" open>"));
  EXPECT_LT(html.find("id=\"variant-tree\""), html.find("id=\"variant-torch212-cxx11-cpu-x86_64-linux\""));
  EXPECT_TRUE(contains(html, "<a href=\"#variant-torch213-cxx11-cu130-x86_64-linux\">"));
  EXPECT_TRUE(contains(html, "exp@GLIBC_2.29 is above GLIBC 2.28")) << html;
  EXPECT_TRUE(
      contains(html, "<span class=\"badge suppressed\">suppressed</span> <span class=\"reason\">kept on purpose"));
  EXPECT_FALSE(contains(html, "<svg")) << "a static audit has no charts";
}

TEST(HtmlFormat, FindingsLinkToTheirRuleWithExplanationAndExamples) {
  std::string html = render_html(sample_report(), catalogue());
  EXPECT_TRUE(contains(html, "<a href=\"#rule-KE001\" title=\"")) << html;
  EXPECT_TRUE(contains(html, "<section class=\"rule\" id=\"rule-KE001\">")) << html;
  EXPECT_EQ(count(html, "<section class=\"rule\""), 5u);  // one per code with a finding
  const RuleInfo* ke001 = nullptr;
  std::vector<RuleInfo> rules = catalogue();
  for (const RuleInfo& rule : rules)
    if (rule.code == "KE001") ke001 = &rule;
  ASSERT_NE(ke001, nullptr);
  ASSERT_FALSE(ke001->example_fix.empty());
  std::string first_fix_line = ke001->example_fix.substr(0, ke001->example_fix.find('\n'));
  EXPECT_TRUE(contains(html, "<pre class=\"example fix\">")) << html;
  EXPECT_TRUE(contains(html, xml_escape(first_fix_line))) << first_fix_line;
}

// Symbols are shown demangled in a cell that wraps (the mangled name is its
// tooltip); explanations are paragraphs and lists, not preformatted text.
TEST(HtmlFormat, SymbolsAreReadableAndExplanationsAreText) {
  Report report = sample_report();
  Finding finding{"KC007", Severity::note, "kcheck.toml:1: the suppression of K is not applied",
                  "",      "kcheck.toml",  {.line = 1}};
  finding.location.symbol = "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm";
  report.findings.push_back(finding);
  const std::string html = render_html(report, catalogue());
  EXPECT_TRUE(
      contains(html,
               "<td class=\"mono where\" title=\"_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm\">"
               "<span class=\"path\"><span class=\"name\">kcheck.toml:1</span> <span "
               "class=\"symbol\">[std::__cxx11::basic_string&lt;char, "
               "std::char_traits&lt;char&gt;, std::allocator&lt;char&gt; &gt;::_M_create(unsigned long&amp;, "
               "unsigned long)]</span></span></td>"))
      << html;
  EXPECT_TRUE(contains(html, ".path .symbol { overflow-wrap: anywhere; }"));
  EXPECT_TRUE(contains(html,
                       "<div class=\"explanation\"><p>A repository&#39;s kcheck.toml (or [tool.kcheck]) may silence "
                       "findings with <code>ignore = [{code, path, reason}]</code>."))
      << html;
  EXPECT_TRUE(
      contains(html, "<ul>\n<li>Under --security (the Hub-side profile) and with --no-repo-config, no suppression"))
      << html;
  EXPECT_FALSE(contains(html, ".explanation, pre.example { white-space: pre-wrap"));

  // Indented lines (a grammar, an example) stay preformatted.
  Report grammar = sample_report();
  grammar.findings.push_back({"KL002", Severity::error, "bad name", "", "build/x", {}});
  const std::string grammar_html = render_html(grammar, catalogue());
  EXPECT_TRUE(contains(grammar_html,
                       "<pre><code>torch&lt;MAJ&gt;&lt;MIN&gt;[-cxx11|-cxx98]-&lt;compute&gt;-&lt;cpu&gt;-&lt;os&gt;"))
      << grammar_html;
}

TEST(HtmlFormat, ACodeThisKcheckDoesNotKnowIsSaidSo) {
  Report report = sample_report();
  report.findings.push_back({"KZ999", Severity::note, "from a newer kcheck", "", "", {}});
  finalise_report(report);
  std::string html = render_html(report, catalogue());
  EXPECT_TRUE(contains(html, "id=\"rule-KZ999\"")) << html;
  EXPECT_TRUE(contains(html, "This kcheck does not know the rule")) << html;
}

TEST(HtmlFormat, TextCannotBreakOutOfThePage) {
  Report report = sample_report();
  report.findings[0].message = "<script>alert('x')</script> & \"quoted\"";
  report.findings[0].file = "a<b>.py";
  report.input = "<img src=x onerror=alert(1)>";
  finalise_report(report);
  std::string html = render_html(report, catalogue());
  EXPECT_FALSE(contains(html, "<script")) << html;
  EXPECT_FALSE(contains(html, "<img")) << html;
  EXPECT_TRUE(contains(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;")) << html;
  EXPECT_TRUE(contains(html, "a&lt;b&gt;.py")) << html;
}

TEST(HtmlFormat, SelfContainedWithoutScriptsOrExternalAssets) {
  std::string html = render_html(sample_bench_report(), catalogue());
  EXPECT_FALSE(contains(html, "<script")) << "no JavaScript";
  EXPECT_FALSE(contains(html, "<link")) << "no external stylesheet";
  EXPECT_FALSE(contains(html, "src=")) << "no external image or script";
  EXPECT_FALSE(contains(html, "url(")) << "no external CSS asset";
  EXPECT_FALSE(contains(html, "@import"));
  std::regex external_link(R"(href="(?!#)[^"]*")");
  EXPECT_FALSE(std::regex_search(html, external_link)) << "links stay inside the page";
}

TEST(HtmlFormat, BenchmarkResultsGetATableAndThreeCharts) {
  std::string html = render_html(sample_bench_report(), catalogue());
  EXPECT_TRUE(contains(html,
                       "Device: NVIDIA H100 80GB HBM3 (cuda), measured copy bandwidth 2905 GB/s, matrix multiply 756 "
                       "TFLOP/s (bfloat16)."))
      << html;
  EXPECT_TRUE(contains(html, "<table class=\"benchmarks\">")) << html;
  // One table per op, under the op's name and its Torch eager baseline.
  EXPECT_EQ(count(html, "<table class=\"benchmarks\">"), 2u) << html;
  EXPECT_TRUE(contains(html,
                       "<h4><span class=\"mono\">silu_and_mul</span> <span class=\"muted\">against Torch eager "
                       "<code>F.silu(x[..., :d]) * x[..., d:]</code></span></h4>"))
      << html;
  EXPECT_TRUE(contains(html,
                       "<tr><td>bfloat16</td><td class=\"mono\">16384x16384</td><td class=\"num\">100</td>"
                       "<td class=\"num\">155.5</td>"))
      << html;
  EXPECT_TRUE(contains(html, "<td class=\"num\">2.57×</td>")) << html;
  EXPECT_TRUE(contains(html, "<table class=\"op-checks\">")) << html;
  EXPECT_TRUE(contains(html, "<span class=\"badge fail\">fail</span>")) << "gelu_fast failed its check";
  EXPECT_EQ(count(html, "<svg class=\"chart-bandwidth\""), 1u) << html;
  EXPECT_EQ(count(html, "<svg class=\"chart-speedup\""), 1u) << html;
  EXPECT_EQ(count(html, "<svg class=\"chart-compile-speedup\""), 1u) << html;
  EXPECT_EQ(count(html, "<rect class=\"bar"), 11u) << "four results in two charts, three compiled in the third";
  EXPECT_TRUE(contains(html, "100% = measured copy 2905 GB/s")) << html;
  EXPECT_EQ(count(html, "<rect class=\"bar short call-bound\""), 1u) << "gelu_and_mul float32 in the compile chart";
  EXPECT_TRUE(contains(html, "1× (torch.compile)")) << html;
  EXPECT_TRUE(contains(html,
                       "<td class=\"num\">171.0</td><td class=\"mono\">max-autotune-no-cudagraphs</td>"
                       "<td class=\"num\">1.10×</td>"))
      << html;
  EXPECT_TRUE(contains(html, "<td class=\"num slower\">0.51×¹</td>")) << "slower than torch.compile, call-bound";
  EXPECT_TRUE(
      contains(html, "<p class=\"muted\">torch.compile not timed: no Python with Torch given (--python) (1 row)</p>"))
      << html;
  EXPECT_TRUE(contains(html, "1× (Torch eager)")) << html;
  EXPECT_TRUE(contains(html, "<td class=\"num\">400.4</td><td class=\"num\">2.57×</td>")) << html;
  EXPECT_TRUE(contains(html, "seed 1234")) << html;
}

// A speed-up below 1 over Torch eager is drawn in the warning colour, as one over torch.compile is.
TEST(HtmlFormat, SlowerThanTorchEagerIsMarked) {
  Report report = sample_bench_report();
  report.dynamic.benchmarks[1].speedup = 0.8;  // silu_and_mul float32
  const std::string html = render_html(report, catalogue());
  EXPECT_TRUE(contains(html, "<td class=\"num\">543.7</td><td class=\"num slower\">0.80×</td>")) << html;
  EXPECT_EQ(count(html, "<td class=\"num slower\">"), 2u) << "this one and the compile speed-up of gelu float32";
  EXPECT_TRUE(contains(render_html(sample_bench_report(), catalogue()),
                       "<td class=\"num\">543.7</td><td class=\"num\">1.87×</td>"));
}

TEST(HtmlFormat, ACallerTemplateAndABrokenOne) {
  EXPECT_EQ(render_html(sample_report(), {}, "{{verdict}} {{errors}}"), "FAIL 3");
  EXPECT_THROW(render_html(sample_report(), {}, "{{#sections}}"), std::runtime_error);
}

TEST(HtmlFormat, LiveRunWritesThePage) {
  fs::path page = scratch_dir() / "report.html";
  RunResult run = kcheck("--format html -o " + shell_quoted(page) + " " + fixture("kp003_match_statement"));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  std::string html = read_text(page);
  EXPECT_TRUE(contains(html, "<h1>kcheck: FAIL</h1>")) << html;
  EXPECT_TRUE(contains(html, "<section class=\"rule\" id=\"rule-KP003\">")) << html;
  EXPECT_TRUE(contains(html, "<pre class=\"example violation\">")) << html;
}

TEST(HtmlFormat, SavedBenchReportRendersWithCharts) {
  fs::path saved = write_scratch("bench.json", report_to_json(sample_bench_report()).dump(2));
  RunResult run = kcheck("report " + shell_quoted(saved) + " --format html");
  EXPECT_EQ(run.exit_code, 1) << run.err;  // KD002 is an error
  EXPECT_EQ(run.out, render_html(sample_bench_report(), catalogue()));
}

TEST(HtmlFormat, SectionSummariesCountInWords) {
  std::string html = render_html(sample_report(), catalogue());
  EXPECT_TRUE(contains(html, "<span class=\"muted\">cuda · 1 error · 1 warning · 0 notes · 0 suppressed</span>"))
      << html;
  EXPECT_TRUE(contains(html, "<span class=\"mono\">tree</span> <span class=\"muted\">1 error · ")) << html;
}

// docs/examples/bench-report.json (the README's screenshot: what `kcheck
// bench` wrote for reference/kernels/rms_norm on an H100) in every format.
TEST(HtmlFormat, EveryFormatRendersTheCommittedJsonExample) {
  const std::string example = shell_quoted(fs::path(KCHECK_SOURCE_DIR) / "docs/examples/bench-report.json");
  for (const std::string& format : output_format_names()) {
    RunResult run = kcheck("report --show-notes " + example + " --format " + format);
    EXPECT_EQ(run.exit_code, 0) << format << ": " << run.err;
    EXPECT_NE(run.out.find("KB001"), std::string::npos) << format << ":\n" << run.out;
  }
  RunResult html = kcheck("report " + example + " --format html");
  EXPECT_EQ(count(html.out, "<svg class=\"chart-bandwidth\""), 1u);
  EXPECT_EQ(count(html.out, "<svg class=\"chart-speedup\""), 1u);
  EXPECT_TRUE(contains(html.out, "F.rms_norm(input, (d,), weight, epsilon)")) << "the eager baseline";
  // The nine KB001 notes are counted, their numbers are in the table.
  EXPECT_TRUE(contains(html.out, "9 KB001 notes, one per benchmark result")) << html.out;
  EXPECT_EQ(count(html.out, "<tr class=\"finding"), 0u);
  RunResult markdown = kcheck("report " + example + " --format markdown");
  EXPECT_TRUE(contains(markdown.out, "### Benchmarks\n")) << markdown.out;
  EXPECT_TRUE(contains(markdown.out, "- 9 KB001 notes, one per benchmark result")) << markdown.out;
}

}  // namespace
}  // namespace kcheck
