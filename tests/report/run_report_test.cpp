// `kcheck run`'s account in every format (issue #27): every op the variants
// registered and how it was verified, the variants not run and why, the
// kernel's own tests; and a verdict that is never PASS while an op went
// unverified or nothing ran.
#include <gtest/gtest.h>

#include "checker/report/render.h"
#include "checker/report/saved_report.h"
#include "tests/report/report_test_support.h"

namespace kcheck {
namespace {

using namespace kcheck::testing;

Report finalised(Report report) {
  finalise_report(report);
  return report;
}

std::string rendered(const Report& report, OutputFormat format) {
  RenderOptions options;
  options.text.least_shown = Severity::warning;
  return render_report(report, format, options);
}

TEST(RunReport, RunsOpsAndTestsRoundTripAndMatchTheSchema) {
  const Report report = finalised(sample_run_report());
  const fs::path path = write_scratch("run.json", report_to_json(report).dump(2));
  RunResult validation =
      venv_python("tests/cli/validate_json_schema.py",
                  shell_quoted(fs::path(KCHECK_SOURCE_DIR) / "docs/report-schema.json") + " " + shell_quoted(path));
  EXPECT_EQ(validation.exit_code, 0) << validation.err << validation.out;
  const Report loaded = load_saved_report(path);
  EXPECT_EQ(report_to_json(loaded), report_to_json(report));
  ASSERT_EQ(loaded.dynamic.ops.size(), 2u);
  EXPECT_EQ(loaded.dynamic.ops[0].unsupported_dtypes, std::vector<std::string>{"float16"});
  EXPECT_EQ(loaded.dynamic.ops_verified(), 1);
  EXPECT_EQ(loaded.dynamic.tests.at(1).message, "assert 2 == 3");
  EXPECT_EQ(loaded.dynamic.runs.at(0).worker, "torch2.11.0-cxx11-cpu-0123456789ab");
  EXPECT_EQ(loaded.dynamic.runs.at(0).python, "/venv/bin/python");
}

TEST(RunReport, TheVerdictIsNeverPassForAnUnverifiedOpOrWhenNothingRan) {
  Report report = sample_run_report();
  report.findings.pop_back();  // no KD008 error
  report = finalised(report);
  EXPECT_EQ(report.verdict(), Report::Verdict::unverified);
  EXPECT_EQ(report.gate_status(), 0) << "KD007 is a warning: the gate is not failed";
  EXPECT_EQ(report_to_json(report)["verdict"], "unverified");
  report.dynamic.ops[1].verified = true;
  EXPECT_EQ(report.verdict(), Report::Verdict::pass);
  for (VariantRun& run : report.dynamic.runs) run.ran = false;
  EXPECT_EQ(report.verdict(), Report::Verdict::not_run);
  EXPECT_EQ(report.gate_status(), 2);
  EXPECT_EQ(report_to_json(report)["verdict"], "not-run");
  EXPECT_NE(rendered(report, OutputFormat::text).find(": NOT RUN"), std::string::npos);
  EXPECT_EQ(rendered(report, OutputFormat::text).find("PASS"), std::string::npos);
}

TEST(RunReport, AVariantThatRegistersNoOpVerifiedNothingAndIsNotPass) {
  Report report = sample_run_report();
  report.findings.clear();
  report.dynamic.ops.clear();
  report.dynamic.tests.clear();
  report = finalised(report);
  EXPECT_EQ(report.verdict(), Report::Verdict::unverified);
}

TEST(RunReport, TextSaysWhatRanWhatWasVerifiedAndWhatWasNotRunWithoutShowNotes) {
  const std::string text = rendered(finalised(sample_run_report()), OutputFormat::text);
  EXPECT_NE(text.find("kcheck run: 1 of 2 variants run, 2 ops registered, 1 verified"), std::string::npos) << text;
  EXPECT_NE(text.find("torch211-cxx11-cpu-x86_64-linux: 2 ops registered, 1 verified; its tests: 1 passed, "
                      "1 failed, 1 skipped"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("torch211-cxx11-cu130-x86_64-linux: not run here: needs the cuda backend"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  against Torch 2.11.0+cpu of /venv/bin/python, worker torch2.11.0-cxx11-cpu-0123456789ab\n"),
            std::string::npos)
      << "the Torch and the worker it ran against: " << text;
}

TEST(RunReport, MarkdownAndHtmlListEveryOpAndTest) {
  const Report report = finalised(sample_run_report());
  const std::string markdown = rendered(report, OutputFormat::markdown);
  EXPECT_NE(markdown.find("### kcheck run: 2 ops registered, 1 verified"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| \\_scale\\_abc::shift | ⚠️ not verified (smoke) | - | - | no reference |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| \\_scale\\_abc::scale | ✅ reference | 4 of 4 | float16 | - |"), std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| tests/test\\_scale.py::test\\_big | ❌ failed | assert 2 == 3 |"), std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("not run: not run here: needs the cuda backend"), std::string::npos) << markdown;
  const std::string html = rendered(report, OutputFormat::html);
  EXPECT_NE(html.find("<table class=\"op-verification\">"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"badge warn\">not verified</span> smoke"), std::string::npos);
  EXPECT_NE(html.find("<table class=\"kernel-tests\">"), std::string::npos);
  EXPECT_NE(html.find("not run: not run here: needs the cuda backend"), std::string::npos);
}

TEST(RunReport, JUnitHasATestCaseForEachOfTheKernelsOwnTests) {
  const std::string junit = rendered(finalised(sample_run_report()), OutputFormat::junit);
  EXPECT_NE(junit.find("<testsuite name=\"torch211-cxx11-cpu-x86_64-linux (the kernel&#39;s own tests)\" tests=\"3\" "
                       "failures=\"1\" errors=\"0\" skipped=\"1\">"),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("<failure type=\"KD008\" message=\"assert 2 == 3\"/>"), std::string::npos) << junit;
  EXPECT_NE(junit.find("<skipped message=\"needs a GPU\"/>"), std::string::npos) << junit;
}

}  // namespace
}  // namespace kcheck
