// Issue #31: the report's JSON is written and read from one member list per
// type (checker/support/json_members.h). The binding is by position, so
// these tests give every member a value of its own and check it under its
// own key: two members of one type swapped in a list would still compile,
// and fail here. A key that is required and missing is refused.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "checker/core/report.h"

namespace kcheck {
namespace {

Report report_with_every_dynamic_type() {
  Report report;
  report.schema_version = kReportSchemaVersion;
  report.tool_version = "0.1.0";
  report.variants.push_back({"v-name", "v-path", "v-backend", {1, 2, 3, 4}});
  DynamicResults& dynamic = report.dynamic;
  dynamic.seed = 7;
  dynamic.devices.push_back({"d-variant", "d-name", "d-backend", 1.5, 2.5, "d-dtype"});
  dynamic.op_checks.push_back({"c-variant", "c-op", "c-dtype", "c-shape", 0.25, 0.125, true});
  BenchmarkResult bench;
  bench.variant = "b-variant";
  bench.op = "b-op";
  bench.dtype = "b-dtype";
  bench.shape = "b-shape";
  bench.repetitions = 11;
  bench.median_us = 1;
  bench.spread_us = 2;
  bench.bytes = 3;
  bench.achieved_gbs = 4;
  bench.percent_of_peak = 5;
  bench.eager = "b-eager";
  bench.eager_problem = "b-eager-problem";
  bench.eager_median_us = 6;
  bench.eager_spread_us = 7;
  bench.speedup = 8;
  bench.compiled.push_back({"m-mode", 9, 10, 11, "m-problem", 14, 15, "m-paired-problem"});
  bench.compiled_problem = "b-compiled-problem";
  bench.compile_speedup = 12;
  bench.eager_python_median_us = 13;
  bench.output_placements = 16;
  dynamic.benchmarks.push_back(bench);
  dynamic.runs.push_back({"r-variant", true, "r-reason", 3, 2, "r-python", "r-torch", "r-worker"});
  dynamic.ops.push_back({"o-variant",
                         "o-op",
                         "o-schema",
                         {"CPU"},
                         "reference",
                         true,
                         "o-reference",
                         5,
                         4,
                         {"float64"},
                         "o-why",
                         "o-reported-as"});
  dynamic.tests.push_back({"t-variant", "t-test", "passed", "t-message", 0.5});
  return report;
}

TEST(ReportJson, EveryMemberIsWrittenUnderItsOwnKey) {
  const nlohmann::json json = report_to_json(report_with_every_dynamic_type());
  EXPECT_EQ(json["variants"][0], nlohmann::json::parse(R"({"name": "v-name", "path": "v-path", "backend": "v-backend",
      "counts": {"errors": 1, "warnings": 2, "notes": 3, "suppressed": 4}})"));
  const nlohmann::json& dynamic = json["dynamic"];
  EXPECT_EQ(dynamic["devices"][0], nlohmann::json::parse(R"({"variant": "d-variant", "name": "d-name",
      "backend": "d-backend", "copy_bandwidth_gbs": 1.5, "matmul_tflops": 2.5, "matmul_dtype": "d-dtype"})"));
  EXPECT_EQ(dynamic["op_checks"][0], nlohmann::json::parse(R"({"variant": "c-variant", "op": "c-op",
      "dtype": "c-dtype", "shape": "c-shape", "max_abs_error": 0.25, "relative_error": 0.125, "passed": true})"));
  EXPECT_EQ(dynamic["benchmarks"][0], nlohmann::json::parse(R"({"variant": "b-variant", "op": "b-op",
      "dtype": "b-dtype", "shape": "b-shape", "repetitions": 11, "median_us": 1.0, "spread_us": 2.0, "bytes": 3.0,
      "achieved_gbs": 4.0, "percent_of_peak": 5.0, "eager": "b-eager", "eager_problem": "b-eager-problem",
      "eager_median_us": 6.0, "eager_spread_us": 7.0, "speedup": 8.0,
      "compiled": [{"mode": "m-mode", "median_us": 9.0, "spread_us": 10.0, "compile_seconds": 11.0,
                    "problem": "m-problem", "paired_median_us": 14.0, "paired_spread_us": 15.0,
                    "paired_problem": "m-paired-problem"}],
      "compiled_problem": "b-compiled-problem", "compile_speedup": 12.0, "eager_python_median_us": 13.0,
      "output_placements": 16})"));
  EXPECT_EQ(dynamic["runs"][0], nlohmann::json::parse(R"({"variant": "r-variant", "ran": true, "reason": "r-reason",
      "ops_registered": 3, "ops_verified": 2, "python": "r-python", "torch": "r-torch", "worker": "r-worker"})"));
  EXPECT_EQ(dynamic["ops"][0], nlohmann::json::parse(R"({"variant": "o-variant", "op": "o-op", "schema": "o-schema",
      "dispatch_keys": ["CPU"], "how": "reference", "verified": true, "reference": "o-reference", "cases_run": 5,
      "cases_passed": 4, "unsupported_dtypes": ["float64"], "why": "o-why", "reported_as": "o-reported-as"})"));
  EXPECT_EQ(dynamic["tests"][0], nlohmann::json::parse(R"({"variant": "t-variant", "test": "t-test",
      "outcome": "passed", "message": "t-message", "seconds": 0.5})"));
}

TEST(ReportJson, ReadsBackWhatItWrote) {
  const nlohmann::json written = report_to_json(report_with_every_dynamic_type());
  const nlohmann::json read_back = report_to_json(report_from_json(written));
  EXPECT_EQ(read_back["dynamic"], written["dynamic"]);
  // The counts are recounted from the findings (none here), never taken from the file.
  EXPECT_EQ(read_back["variants"][0]["counts"], nlohmann::json::parse(R"({"errors": 0, "warnings": 0, "notes": 0,
      "suppressed": 0})"));
}

TEST(ReportJson, ARequiredKeyMissingIsNoReportAndANewerOneMayBe) {
  nlohmann::json json = report_to_json(report_with_every_dynamic_type());
  nlohmann::json without_median = json;
  without_median["dynamic"]["benchmarks"][0].erase("median_us");
  EXPECT_THROW(report_from_json(without_median), std::runtime_error);
  nlohmann::json empty_summary = json;
  empty_summary["summary"] = nlohmann::json::object();
  EXPECT_THROW(report_from_json(empty_summary), std::runtime_error);
  nlohmann::json without_ran = json;
  without_ran["dynamic"]["runs"][0].erase("ran");
  EXPECT_THROW(report_from_json(without_ran), std::runtime_error);
  // Keys newer than 1.5's reports are optional: an older report still loads.
  nlohmann::json older = json;
  older["dynamic"]["runs"][0].erase("worker");
  older["dynamic"]["benchmarks"][0].erase("compiled");
  const Report loaded = report_from_json(older);
  EXPECT_EQ(loaded.dynamic.runs[0].worker, "");
  EXPECT_EQ(loaded.dynamic.benchmarks[0].compiled_problem,
            "a report of an earlier kcheck, which timed no torch.compile baseline");
}

}  // namespace
}  // namespace kcheck
