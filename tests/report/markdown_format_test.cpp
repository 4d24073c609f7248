// Markdown output from reports/templates/report.md.mustache: verdict, counts
// per severity, a table of variants, the findings grouped by variant.
#include "checker/report/markdown_format.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/report/report_test_support.h"

namespace kcheck {
namespace {

using namespace kcheck::testing;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(MarkdownFormat, VerdictCountsVariantTableAndGroupedFindings) {
  std::string markdown = render_markdown(sample_report());
  EXPECT_TRUE(markdown.starts_with("## kcheck: FAIL\n")) << markdown;
  EXPECT_TRUE(contains(markdown, "**FAIL** · 2 variants · 3 errors · 1 warning · 0 notes · 1 suppressed")) << markdown;
  EXPECT_TRUE(contains(markdown, "| 3 | 1 | 0 | 1 |\n")) << markdown;
  EXPECT_TRUE(contains(markdown, "| torch212-cxx11-cpu-x86\\_64-linux | cpu | 1 | 0 | 0 | ❌ |\n")) << markdown;
  EXPECT_TRUE(contains(markdown, "| torch213-cxx11-cu130-x86\\_64-linux | cuda | 1 | 1 | 0 | ❌ |\n")) << markdown;
  // Grouped: tree-level first, then the variants in the report's order.
  std::size_t tree = markdown.find("#### tree\n");
  std::size_t cpu = markdown.find("#### torch212-cxx11-cpu-x86\\_64-linux\n");
  std::size_t cuda = markdown.find("#### torch213-cxx11-cu130-x86\\_64-linux\n");
  ASSERT_NE(tree, std::string::npos) << markdown;
  ASSERT_NE(cpu, std::string::npos) << markdown;
  ASSERT_NE(cuda, std::string::npos) << markdown;
  EXPECT_LT(tree, cpu);
  EXPECT_LT(cpu, cuda);
  std::size_t kp003 = markdown.find(
      "- **error** **KP003** torch212-cxx11-cpu-x86\\_64-linux/relu/helpers.py:7: match statement needs Python 3.10\n");
  EXPECT_NE(kp003, std::string::npos) << markdown;
  EXPECT_GT(kp003, cpu);
  EXPECT_LT(kp003, cuda);
  EXPECT_TRUE(contains(markdown, "\\[exp@GLIBC\\_2.29\\]: exp@GLIBC\\_2.29 is above GLIBC 2.28\n")) << markdown;
  EXPECT_TRUE(contains(markdown, " *(suppressed: kept on purpose)*")) << markdown;
  EXPECT_FALSE(contains(markdown, "No findings.")) << markdown;
}

TEST(MarkdownFormat, ACleanReportPasses) {
  Report report = sample_report();
  report.findings.clear();
  finalise_report(report);
  std::string markdown = render_markdown(report);
  EXPECT_TRUE(markdown.starts_with("## kcheck: PASS\n")) << markdown;
  EXPECT_TRUE(contains(markdown, "✅ **PASS** · 2 variants · 0 errors · 0 warnings · 0 notes\n")) << markdown;
  EXPECT_TRUE(contains(markdown, "No findings.")) << markdown;
  EXPECT_FALSE(contains(markdown, "####")) << markdown;
}

// Issue #29: a note informs; a variant with only notes is clean (✅, not ⚠️).
TEST(MarkdownFormat, AVariantWithOnlyANoteIsMarkedClean) {
  Report report = sample_report();
  report.findings.clear();
  Finding note;
  note.code = "KL006";
  note.severity = Severity::note;
  note.variant = report.variants.front().name;
  note.message = "a note";
  report.findings.push_back(note);
  finalise_report(report);
  const std::string markdown = render_markdown(report);
  EXPECT_TRUE(contains(markdown, "| torch212-cxx11-cpu-x86\\_64-linux | cpu | 0 | 0 | 1 | ✅ |")) << markdown;
  EXPECT_FALSE(contains(markdown, "⚠️")) << markdown;
}

TEST(MarkdownFormat, MessagesCannotBreakTheMarkup) {
  Report report = sample_report();
  for (Finding& finding : report.findings)
    if (finding.code == "KP003") finding.message = "a | b *c* <script>\nnext";
  std::string markdown = render_markdown(report);
  EXPECT_TRUE(contains(markdown, "a \\| b \\*c\\* \\<script\\> next")) << markdown;
  EXPECT_EQ(markdown_escape("x_y`z"), "x\\_y\\`z");
}

TEST(MarkdownFormat, BenchmarkTableWhenTheReportHasResults) {
  std::string markdown = render_markdown(sample_bench_report());
  EXPECT_TRUE(contains(markdown, "### Benchmarks\n")) << markdown;
  EXPECT_TRUE(contains(markdown,
                       "Device of torch211-cxx11-cu130-x86\\_64-linux: NVIDIA H100 80GB HBM3 (cuda), "
                       "measured copy bandwidth 2905 GB/s, matrix multiply 756 TFLOP/s (bfloat16).\n"))
      << markdown;
  EXPECT_TRUE(contains(markdown, "Inputs from seed 1234.\n")) << markdown;
  // One table per op, under its name and its Torch eager baseline.
  EXPECT_TRUE(contains(markdown,
                       "#### silu\\_and\\_mul (torch211-cxx11-cu130-x86\\_64-linux)\n\n"
                       "Torch eager baseline: F.silu(x\\[..., :d\\]) \\* x\\[..., d:\\]\n\n"
                       "| dtype | shape | median µs | IQR µs | GB/s | % of copy | eager µs | × eager | "
                       "compiled µs | mode | × compiled |\n"))
      << markdown;
  // 402653184 bytes in 155.5 us: 2589 GB/s, 89% of 2905; Torch eager 400.4 / 155.5 = 2.57x;
  // torch.compile's fastest mode 171.0 / 155.5 = 1.10x.
  EXPECT_TRUE(contains(markdown,
                       "| bfloat16 | 16384x16384 | 155.5 | 1.6 | 2589 | 89 | 400.4 | 2.57× | 171.0 | "
                       "max-autotune-no-cudagraphs | 1.10× |\n"))
      << markdown;
  // A mode out of time, a row never compiled, a row bound by Python's call overhead: said under the table.
  EXPECT_TRUE(contains(markdown, "| 543.7 | 1.87× | 300.0 | default | 1.03× |\n")) << markdown;
  EXPECT_TRUE(contains(markdown,
                       "\ntorch.compile max-autotune-no-cudagraphs: not finished within the torch.compile "
                       "time bound (900 s, --compile-timeout) (1 row)\n"))
      << markdown;
  EXPECT_TRUE(contains(markdown, "| 401.0 | 2.55× | – | – | – |\n")) << markdown;
  EXPECT_TRUE(contains(markdown, "\ntorch.compile not timed: no Python with Torch given (--python) (1 row)\n"))
      << markdown;
  EXPECT_TRUE(contains(markdown, "| 545.0 | 1.87× | 150.0 | default | **0.51×¹ slower** |\n")) << markdown;
  EXPECT_TRUE(contains(markdown, "\n¹ Python's per-call overhead, not the device, likely sets this compiled timing"))
      << markdown;
  // Under each table, its rows as a text chart: % of the copy bandwidth and both speed-ups.
  EXPECT_TRUE(contains(markdown,
                       "```text\n% of the measured copy bandwidth (each █ 4%), speed-up over Torch eager and "
                       "torch.compile\nsilu_and_mul · bfloat16 · 16384x16384  ██████████████████████▎    "
                       "89%  2.57× eager   1.10× compile\n"))
      << markdown;
  EXPECT_TRUE(contains(markdown,
                       "| torch211-cxx11-cu130-x86\\_64-linux | gelu\\_fast | float16 | 4096x8192 | 0.0310 | "
                       "0.0042 | ❌ |\n"))
      << markdown;
  EXPECT_LT(markdown.find("### Findings"), markdown.find("### Benchmarks")) << markdown;
  EXPECT_FALSE(contains(render_markdown(sample_report()), "Benchmarks")) << "a static audit has none";
}

// A speed-up below 1 (slower than Torch eager or torch.compile) is bold and says "slower"; 1 or above is not.
TEST(MarkdownFormat, SpeedupsBelowOneAreMarkedSlower) {
  Report report = sample_bench_report();
  report.dynamic.benchmarks[1].speedup = 0.8;          // silu_and_mul float32, eager
  report.dynamic.benchmarks[0].compile_speedup = 0.9;  // silu_and_mul bfloat16, compiled
  report.dynamic.benchmarks[2].speedup = 1.0;          // gelu_and_mul bfloat16: as fast, not slower
  const std::string markdown = render_markdown(report);
  EXPECT_TRUE(contains(markdown, "| 543.7 | **0.80× slower** | 300.0 | default | 1.03× |\n")) << markdown;
  EXPECT_TRUE(contains(markdown, "| 400.4 | 2.57× | 171.0 | max-autotune-no-cudagraphs | **0.90× slower** |\n"))
      << markdown;
  EXPECT_TRUE(contains(markdown, "| 401.0 | 1.00× | – | – | – |\n")) << markdown;
  EXPECT_TRUE(contains(markdown, "| 545.0 | 1.87× | 150.0 | default | **0.51×¹ slower** |\n")) << markdown;
  std::size_t marked = 0;
  for (std::size_t at = markdown.find(" slower**"); at != std::string::npos; at = markdown.find(" slower**", at + 1))
    ++marked;
  EXPECT_EQ(marked, 3u) << markdown;
}

TEST(MarkdownFormat, ACallerTemplateAndABrokenOne) {
  EXPECT_EQ(render_markdown(sample_report(), "{{verdict}} {{#variants}}[{{backend}}]{{/variants}}"),
            "FAIL [cpu][cuda]");
  EXPECT_THROW(render_markdown(sample_report(), "{{#groups}}unclosed"), std::runtime_error);
}

TEST(MarkdownFormat, LiveRunOnAPythonFinding) {
  RunResult run = kcheck("--format markdown " + fixture("kp003_match_statement"));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_TRUE(run.out.starts_with("## kcheck: FAIL\n")) << run.out;
  EXPECT_TRUE(contains(run.out, "**KP003** build/torch212-cxx11-cpu-x86\\_64-linux/helpers.py:2: ")) << run.out;
}

}  // namespace
}  // namespace kcheck
