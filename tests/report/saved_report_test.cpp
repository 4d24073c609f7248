// `kcheck report FILE --format F` renders a saved JSON report again without
// re-running anything, and exits as the saved report's gate.
#include "checker/report/saved_report.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "checker/report/render.h"
#include "tests/report/report_test_support.h"

namespace kcheck {
namespace {

using namespace kcheck::testing;

fs::path save_json(const std::string& tree) {
  fs::path path = scratch_dir() / "saved.json";
  RunResult run = kcheck("--format json -o " + shell_quoted(path) + " " + fixture(tree));
  EXPECT_NE(run.exit_code, 2) << run.err;
  return path;
}

TEST(SavedReport, LoadsWhatJsonOutputWrote) {
  Report report = load_saved_report(save_json("kl007_links_and_special_files"));
  EXPECT_EQ(report.summary.errors, 6);
  EXPECT_EQ(report.gate_status(), 1);
  EXPECT_EQ(report.variants.size(), 2u);
}

TEST(SavedReport, DynamicResultsRoundTripAndMatchTheSchema) {
  Report report = sample_bench_report();
  fs::path path = write_scratch("bench.json", report_to_json(report).dump(2));
  RunResult validation =
      venv_python("tests/cli/validate_json_schema.py",
                  shell_quoted(fs::path(KCHECK_SOURCE_DIR) / "docs/report-schema.json") + " " + shell_quoted(path));
  EXPECT_EQ(validation.exit_code, 0) << validation.err << validation.out;
  Report loaded = load_saved_report(path);
  EXPECT_EQ(report_to_json(loaded), report_to_json(report));
  ASSERT_EQ(loaded.dynamic.benchmarks.size(), 4u);
  EXPECT_EQ(loaded.dynamic.seed, 1234u);
  EXPECT_DOUBLE_EQ(loaded.dynamic.devices.at(0).copy_bandwidth_gbs, 2905.0);
  EXPECT_FALSE(loaded.dynamic.op_checks.at(1).passed);
}

TEST(SavedReport, AStaticReportHasNoDynamicMember) {
  EXPECT_FALSE(report_to_json(sample_report()).contains("dynamic"));
}

TEST(SavedReport, RejectsWhatIsNoKcheckReport) {
  EXPECT_THROW(load_saved_report(scratch_dir() / "missing.json"), std::runtime_error);
  EXPECT_THROW(load_saved_report(write_scratch("text.json", "not json")), std::runtime_error);
  EXPECT_THROW(load_saved_report(write_scratch("other.json", R"({"tool": {"name": "ruff"}})")), std::runtime_error);
  EXPECT_THROW(load_saved_report(write_scratch("partial.json", R"({"tool": {"name": "kcheck"}, "findings": []})")),
               std::runtime_error);
}

TEST(SavedReport, ReRendersEveryFormatLikeTheLiveRun) {
  const std::string tree = fixture("kl007_links_and_special_files");
  fs::path saved = save_json("kl007_links_and_special_files");
  for (const std::string& format : output_format_names()) {
    if (format == "text") continue;  // names the audited root the same way; compared below without it
    RunResult live = kcheck("--format " + format + " " + tree);
    RunResult again = kcheck("report " + shell_quoted(saved) + " --format " + format);
    EXPECT_EQ(again.exit_code, 1) << format << ": " << again.err;
    EXPECT_EQ(again.out, live.out) << format;
  }
  RunResult text = kcheck("report " + shell_quoted(saved));
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_EQ(text.out, kcheck(tree).out);
}

TEST(SavedReport, ExitsAsTheSavedGateAndWritesTheOutputFile) {
  fs::path saved = save_json("kl005_files_that_must_not_ship");  // warnings only
  fs::path sarif = scratch_dir() / "again.sarif";
  RunResult run = kcheck("report " + shell_quoted(saved) + " --format sarif -o " + shell_quoted(sarif));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.out.empty());
  nlohmann::json log = nlohmann::json::parse(read_text(sarif));
  ASSERT_FALSE(log["runs"][0]["results"].empty());
  EXPECT_EQ(log["runs"][0]["results"][0]["ruleId"], "KL005");
  EXPECT_EQ(log["runs"][0]["results"][0]["level"], "warning");
}

TEST(SavedReport, ExitsTwoOnAFileThatIsNoKcheckReport) {
  RunResult not_json = kcheck("report " + shell_quoted(write_scratch("x.json", "{")));
  EXPECT_EQ(not_json.exit_code, 2);
  EXPECT_NE(not_json.err.find("x.json"), std::string::npos) << not_json.err;
  EXPECT_EQ(kcheck("report " + shell_quoted(write_scratch("y.json", R"({"tool": {"name": "kcheck"}})"))).exit_code, 2);
  EXPECT_EQ(kcheck("report /no/such/report.json").exit_code, 2);
  EXPECT_EQ(kcheck("report " + shell_quoted(save_json("kl005_files_that_must_not_ship")) + " --format yaml").exit_code,
            2);
}

}  // namespace
}  // namespace kcheck
