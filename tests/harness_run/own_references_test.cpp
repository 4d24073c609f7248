// Issue #27 through the command line, as a kernel author runs it: ops with no
// built-in spec are verified by the repository's own kcheck-ops.toml (a Torch
// expression, a Python function of the repository) or by the kernel's own
// tests (`kcheck run --tests`); what could not be verified is said, never
// passed. The fixture repositories are harness_fixtures/own_* (fixtures.cmake).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/support/kcheck_command.h"

namespace {

namespace fs = std::filesystem;
using kcheck_test::RunResult;
using kcheck_test::shell_quoted;
using nlohmann::json;

std::string fixture(const std::string& name) { return shell_quoted(fs::path(KCHECK_HARNESS_FIXTURES_DIR) / name); }

// `kcheck run` on a fixture repository, its JSON report and what it printed.
struct KcheckRun {
  RunResult result;
  json report;
};

KcheckRun run_kcheck(const std::string& arguments) {
  const fs::path dir = kcheck_test::scratch_dir("own-references");
  KcheckRun run;
  run.result =
      kcheck_test::run_kcheck_in(dir, "run --select KD --seed 11 --python " + shell_quoted(KCHECK_VENV_PYTHON) + " " +
                                          arguments + " --format json -o " + shell_quoted(dir / "report.json"));
  run.report = json::parse(kcheck_test::read_text(dir / "report.json"), nullptr, false);
  return run;
}

std::multiset<std::string> codes(const json& report) {
  std::multiset<std::string> found;
  for (const json& finding : report["findings"]) found.insert(finding["code"].get<std::string>());
  return found;
}

std::map<std::string, json> ops_by_name(const json& report) {
  std::map<std::string, json> ops;
  for (const json& op : report["dynamic"]["ops"]) ops[op["op"].get<std::string>()] = op;
  return ops;
}

TEST(OwnReferences, AnExpressionAndAPythonFunctionOfTheRepositoryVerifyOpsNoBuiltInSpecKnows) {
  const KcheckRun run = run_kcheck(fixture("own_reference"));
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  EXPECT_EQ(run.result.exit_code, 0) << run.result.err << run.report["findings"].dump(1);
  EXPECT_EQ(codes(run.report), std::multiset<std::string>{}) << run.report["findings"].dump(1);
  EXPECT_EQ(run.report["verdict"], "pass");
  const std::map<std::string, json> ops = ops_by_name(run.report);
  ASSERT_EQ(ops.size(), 3u);
  for (const char* name : {"scale", "scaled", "times"}) {
    const json& op = ops.at(std::string("_own_reference_cpu_abc123::") + name);
    EXPECT_EQ(op["how"], "reference") << op.dump();
    EXPECT_TRUE(op["verified"].get<bool>()) << op.dump();
    EXPECT_EQ(op["cases_run"], 4) << "float32 and bfloat16 at small and medium: " << op.dump();
    EXPECT_EQ(op["cases_passed"], 4) << op.dump();
  }
  EXPECT_EQ(ops.at("_own_reference_cpu_abc123::scaled")["reference"], "python:reference.py:scaled");
  const json& run_of_variant = run.report["dynamic"]["runs"][0];
  EXPECT_EQ(run_of_variant["ops_registered"], 3);
  EXPECT_EQ(run_of_variant["ops_verified"], 3);
}

// Issue #27 item 6: `kcheck bench` times an op against the repository's own
// baseline (an expression, a Python function of the repository) from Python,
// and an op with none gets its own time only.
TEST(OwnReferences, BenchTimesOpsAgainstTheRepositorysOwnBaselines) {
  const fs::path dir = kcheck_test::scratch_dir("own-baselines");
  const RunResult result = kcheck_test::run_kcheck_in(
      dir, "bench --seed 11 --sizes small --samples 5 --compile none --python " + shell_quoted(KCHECK_VENV_PYTHON) +
               " " + fixture("own_reference") + " --format json -o " + shell_quoted(dir / "bench.json"));
  const json report = json::parse(kcheck_test::read_text(dir / "bench.json"), nullptr, false);
  ASSERT_TRUE(report.is_object()) << result.err;
  std::map<std::string, json> float32;
  for (const json& benchmark : report["dynamic"]["benchmarks"])
    if (benchmark["dtype"] == "float32") float32[benchmark["op"].get<std::string>()] = benchmark;
  ASSERT_EQ(float32.size(), 3u) << report["dynamic"]["benchmarks"].dump(1);
  const json& scale = float32.at("_own_reference_cpu_abc123::scale");
  EXPECT_EQ(scale["eager"], "x * factor (timed from Python)") << scale.dump();
  EXPECT_GT(scale["eager_median_us"].get<double>(), 0) << scale.dump();
  EXPECT_GT(scale["speedup"].get<double>(), 0) << scale.dump();
  const json& scaled = float32.at("_own_reference_cpu_abc123::scaled");
  EXPECT_EQ(scaled["eager"], "python:reference.py:scaled (timed from Python)") << scaled.dump();
  EXPECT_GT(scaled["eager_median_us"].get<double>(), 0) << scaled.dump();
  const json& times = float32.at("_own_reference_cpu_abc123::times");
  EXPECT_EQ(times["eager"], "") << times.dump();
  EXPECT_EQ(times["eager_problem"], "the op spec declares no baseline") << times.dump();
  EXPECT_GT(times["median_us"].get<double>(), 0) << "its own time only: " << times.dump();
}

// Issue #32: an output past twice the last-level cache is timed over four
// blocks (checker/harness/worker/timing_layout.h), the worker's op writing
// them in turn and the helper holding three of the own baseline's results;
// smaller outputs keep one. On the CPU: the worker's cache figure is 32 MiB.
TEST(OwnReferences, BenchTimesOutputsPastTwiceTheCacheOverFourBlocks) {
  const fs::path dir = kcheck_test::scratch_dir("own-placements");
  const RunResult result =
      kcheck_test::run_kcheck_in(dir, "bench --seed 11 --sizes small,large --samples 3 --compile none --python " +
                                          shell_quoted(KCHECK_VENV_PYTHON) + " " + fixture("own_reference") +
                                          " --format json -o " + shell_quoted(dir / "bench.json"));
  const json report = json::parse(kcheck_test::read_text(dir / "bench.json"), nullptr, false);
  ASSERT_TRUE(report.is_object()) << result.err;
  std::map<std::string, json> scale;  // "dtype shape"
  for (const json& benchmark : report["dynamic"]["benchmarks"])
    if (benchmark["op"] == "_own_reference_cpu_abc123::scale")
      scale[benchmark["dtype"].get<std::string>() + " " + benchmark["shape"].get<std::string>()] = benchmark;
  ASSERT_EQ(scale.size(), 4u) << report["dynamic"]["benchmarks"].dump(1);
  const json& large = scale.at("float32 4096x5000");
  EXPECT_EQ(large["output_placements"], 4) << "82 MB out: " << large.dump();
  EXPECT_GT(large["median_us"].get<double>(), 0) << large.dump();
  EXPECT_GT(large["eager_median_us"].get<double>(), 0) << "the helper timed its baseline: " << large.dump();
  EXPECT_EQ(scale.at("bfloat16 4096x5000")["output_placements"], 1) << "41 MB out: one block";
  EXPECT_EQ(scale.at("float32 5x33")["output_placements"], 1);
}

TEST(OwnReferences, AWrongOpIsKD002AndAReferenceThatTriesToRunCodeIsRefused) {
  fs::remove("/tmp/kcheck-reference-evaluator-escaped");
  const KcheckRun run = run_kcheck(fixture("own_reference_wrong"));
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  EXPECT_EQ(run.result.exit_code, 1) << run.result.err;
  EXPECT_EQ(codes(run.report), (std::multiset<std::string>{"KD002", "KD007"})) << run.report["findings"].dump(1);
  for (const json& finding : run.report["findings"]) {
    const std::string message = finding["message"];
    if (finding["code"] == "KD002") {
      EXPECT_NE(message.find("_own_reference_wrong_cpu_abc123::scale float32"), std::string::npos) << message;
    } else {
      EXPECT_NE(message.find("_own_reference_wrong_cpu_abc123::leak was not verified: its reference gave no"),
                std::string::npos)
          << message;
      EXPECT_NE(message.find("unknown name '__import__'"), std::string::npos) << message;
    }
  }
  EXPECT_FALSE(fs::exists("/tmp/kcheck-reference-evaluator-escaped")) << "the expression ran code";
}

TEST(OwnReferences, OpsWithoutAReferenceAreCountedAndTheVerdictIsNotPass) {
  const KcheckRun run = run_kcheck(fixture("own_tests"));
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  EXPECT_EQ(run.result.exit_code, 0) << "KD007 is a warning by default: " << run.result.err;
  EXPECT_EQ(codes(run.report), std::multiset<std::string>{"KD007"});
  EXPECT_EQ(run.report["verdict"], "unverified");
  const KcheckRun strict = run_kcheck("--require-verified " + fixture("own_tests"));
  EXPECT_EQ(strict.result.exit_code, 1) << "an error under --require-verified";
  EXPECT_EQ(strict.report["findings"][0]["severity"], "error");
  const fs::path dir = kcheck_test::scratch_dir("own-references");
  const RunResult text = kcheck_test::run_kcheck_in(
      dir, "run --select KD --python " + shell_quoted(KCHECK_VENV_PYTHON) + " " + fixture("own_tests"));
  EXPECT_NE(text.out.find("1 op registered, 0 verified"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(": UNVERIFIED"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("PASS"), std::string::npos) << text.out;
}

TEST(OwnTests, TheKernelsOwnTestsRunAgainstTheVariantAndAFailingOneIsKD008) {
  const KcheckRun run = run_kcheck("--tests " + fixture("own_tests"));
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  EXPECT_EQ(run.result.exit_code, 1) << run.result.err;
  EXPECT_EQ(codes(run.report), std::multiset<std::string>{"KD008"}) << run.report["findings"].dump(1);
  const std::string message = run.report["findings"][0]["message"];
  EXPECT_NE(message.find("tests/test_scale.py::test_planted_failure failed"), std::string::npos) << message;
  EXPECT_NE(message.find("planted: the kernel doubles"), std::string::npos) << message;
  std::map<std::string, std::string> outcomes;
  for (const json& test : run.report["dynamic"]["tests"])
    outcomes[test["test"].get<std::string>()] = test["outcome"].get<std::string>();
  EXPECT_EQ(outcomes, (std::map<std::string, std::string>{{"tests/test_scale.py::test_on_gpu", "skipped"},
                                                          {"tests/test_scale.py::test_planted_failure", "failed"},
                                                          {"tests/test_scale.py::test_scale_doubles", "passed"}}));
  const json& op = run.report["dynamic"]["ops"][0];
  EXPECT_EQ(op["how"], "tests") << "the tests called the op: verified by them";
  EXPECT_TRUE(op["verified"].get<bool>());
}

TEST(OwnTests, APassingSuiteGivesNoFindingAndVerifiesTheOpItCalls) {
  const KcheckRun run = run_kcheck("--tests=passing_tests " + fixture("own_tests"));
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  EXPECT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_EQ(codes(run.report), std::multiset<std::string>{}) << run.report["findings"].dump(1);
  EXPECT_EQ(run.report["verdict"], "pass");
  EXPECT_EQ(run.report["dynamic"]["ops"][0]["how"], "tests");
}

TEST(OwnTests, ASuiteThatCannotStartIsKD008SayingWhyNeverAPass) {
  const KcheckRun run = run_kcheck("--tests=broken_tests " + fixture("own_tests"));
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  EXPECT_EQ(run.result.exit_code, 1);
  EXPECT_EQ(codes(run.report), (std::multiset<std::string>{"KD007", "KD008"})) << run.report["findings"].dump(1);
  for (const json& finding : run.report["findings"]) {
    if (finding["code"] != "KD008") continue;
    EXPECT_NE(finding["message"].get<std::string>().find("a_test_dependency_that_is_not_installed"), std::string::npos)
        << finding["message"];
  }
}

TEST(OwnTests, ManyTestsFailingAlikeAreOneFindingWithTheirCount) {
  const KcheckRun run = run_kcheck("--tests=alike_tests " + fixture("own_tests"));
  ASSERT_TRUE(run.report.is_object()) << run.result.err;
  std::vector<std::string> messages;
  for (const json& finding : run.report["findings"])
    if (finding["code"] == "KD008") messages.push_back(finding["message"]);
  ASSERT_EQ(messages.size(), 2u) << run.report["findings"].dump(1);
  EXPECT_NE(messages[0].find("5 tests failed alike, the first alike_tests/test_alike.py::test_needs_a_device[1]: "
                             "RuntimeError: Found no accelerator on this machine"),
            std::string::npos)
      << messages[0];
  EXPECT_NE(messages[1].find("test alike_tests/test_alike.py::test_its_own_failure failed: AssertionError: a "
                             "different message"),
            std::string::npos)
      << messages[1];
  EXPECT_EQ(run.report["dynamic"]["tests"].size(), 6u) << "every test stays in the report";
}

TEST(OwnTests, NoPythonMeansTheSuiteDidNotRunAndSaysSo) {
  const fs::path dir = kcheck_test::scratch_dir("own-references");
  const RunResult result =
      kcheck_test::run_kcheck_in(dir, "run --select KD --tests --python none --format json " + fixture("own_tests"));
  const json report = json::parse(result.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << result.err;
  EXPECT_EQ(result.exit_code, 1);
  bool said = false;
  for (const json& finding : report["findings"])
    said = said || (finding["code"] == "KD008" &&
                    finding["message"].get<std::string>().find("did not run: no Python") != std::string::npos);
  EXPECT_TRUE(said) << report["findings"].dump(1);
}

TEST(DynamicRun, AVariantThatCannotRunAnywhereHereIsExit2WithTheReason) {
  const fs::path dir = kcheck_test::scratch_dir("own-references");
  const fs::path tree = dir / "repo" / "build" / "torch299-cxx11-cpu-x86_64-linux";
  fs::create_directories(tree);
  fs::copy_file(fs::path(KCHECK_HARNESS_FIXTURES_DIR) / "good" / "build" / "torch211-cxx11-cpu-x86_64-linux" /
                    "_good_cpu_abc123.abi3.so",
                tree / "_good_cpu_abc123.abi3.so", fs::copy_options::overwrite_existing);
  const RunResult result =
      kcheck_test::run_kcheck_in(dir, "run --select KD --python none " + shell_quoted(dir / "repo"));
  EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
  EXPECT_NE(result.err.find("no variant could be run here"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("Torch 2.99"), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("NOT RUN"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("PASS"), std::string::npos) << result.out;
}

}  // namespace
