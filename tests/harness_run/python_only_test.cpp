// `kcheck run` on a Python-only (noarch) kernel, as its author runs it: the
// kernel source tests/fixtures/kernels/noarch-scale is built by `kcheck
// build` (no compiler needed), then run. The load is the import of the
// package through Python, contained; the op it registers from Python is
// listed, verified only by the kernel's own tests, and an import that raises
// is KD001. Issue #30: a Python-only build must be loaded before it counts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/support/kcheck_command.h"

namespace {

namespace fs = std::filesystem;
using kcheck_test::RunResult;
using kcheck_test::shell_quoted;
using nlohmann::json;

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// The noarch-scale kernel source in a scratch folder, built by `kcheck build`
// into build/torch-cpu and build/torch-cuda.
fs::path built_noarch_kernel(const std::string& area) {
  const fs::path dir = kcheck_test::scratch_dir(area);
  fs::path kernel = dir / "noarch-scale";
  fs::remove_all(kernel);  // a rerun starts from the source again
  fs::copy(fs::path(KCHECK_SOURCE_DIR) / "tests/fixtures/kernels/noarch-scale", kernel, fs::copy_options::recursive);
  const RunResult built = kcheck_test::run_kcheck_in(dir, "build " + shell_quoted(kernel));
  EXPECT_EQ(built.exit_code, 0) << built.out << built.err;
  EXPECT_TRUE(fs::exists(kernel / "build/torch-cpu/__init__.py")) << built.out << built.err;
  return kernel;
}

struct KcheckRun {
  RunResult result;
  json report;
};

KcheckRun run_kcheck(const fs::path& kernel, const std::string& arguments) {
  KcheckRun run;
  const fs::path report = kernel.parent_path() / "report.json";
  run.result = kcheck_test::run_kcheck_in(
      kernel.parent_path(), "run --select KD,KO006 --python " + shell_quoted(KCHECK_VENV_PYTHON) + " " + arguments +
                                " " + shell_quoted(kernel) + " --format json -o " + shell_quoted(report));
  run.report = json::parse(kcheck_test::read_text(report), nullptr, false);
  return run;
}

std::multiset<std::string> codes(const json& report) {
  std::multiset<std::string> found;
  for (const json& finding : report["findings"]) found.insert(finding["code"].get<std::string>());
  return found;
}

const json* run_of(const json& report, const std::string& variant) {
  for (const json& run : report["dynamic"]["runs"])
    if (run["variant"] == variant) return &run;
  return nullptr;
}

TEST(PythonOnlyRun, ThePackageIsImportedAndItsOpListedButNotVerifiedWithoutTests) {
  const fs::path kernel = built_noarch_kernel("python-only-run");
  const KcheckRun run = run_kcheck(kernel, "");
  ASSERT_TRUE(run.report.is_object()) << run.result.out << run.result.err;
  EXPECT_EQ(run.result.exit_code, 0) << "KD007 is a warning: " << run.result.err;
  // KD005 for torch-cuda (no GPU here) is a note; KD007 names the op.
  EXPECT_EQ(codes(run.report), (std::multiset<std::string>{"KD005", "KD007"})) << run.report["findings"].dump(1);
  EXPECT_EQ(run.report["verdict"], "unverified");
  const json* cpu = run_of(run.report, "torch-cpu");
  ASSERT_NE(cpu, nullptr) << run.report["dynamic"].dump(1);
  EXPECT_TRUE((*cpu)["ran"].get<bool>()) << cpu->dump();
  EXPECT_EQ((*cpu)["ops_registered"], 1) << "the op its import registered";
  EXPECT_EQ((*cpu)["ops_verified"], 0);
  for (const json& finding : run.report["findings"]) {
    if (finding["code"] != "KD007") continue;
    EXPECT_NE(finding["message"].get<std::string>().find("registered from Python"), std::string::npos)
        << finding["message"];
  }
}

TEST(PythonOnlyRun, TheKernelsOwnTestsVerifyTheOpAndTheVerdictIsPass) {
  const fs::path kernel = built_noarch_kernel("python-only-tests");
  write(kernel / "tests/test_scale.py",
        "import torch\nimport noarch_scale\n\n\n"
        "def test_scale_doubles():\n"
        "    x = torch.arange(4.0)\n"
        "    assert torch.equal(noarch_scale.scale(x, 2.0), x * 2)\n\n\n"
        // What Torch raises for device="cuda" when the GPUs are hidden (this machine may have none).
        "def test_on_the_gpu():\n"
        "    raise RuntimeError('No CUDA GPUs are available')\n");
  const KcheckRun run = run_kcheck(kernel, "--tests");
  ASSERT_TRUE(run.report.is_object()) << run.result.out << run.result.err;
  EXPECT_EQ(run.result.exit_code, 0) << run.result.err;
  EXPECT_EQ(codes(run.report), std::multiset<std::string>{"KD005"}) << run.report["findings"].dump(1);
  EXPECT_EQ(run.report["verdict"], "pass");
  ASSERT_EQ(run.report["dynamic"]["ops"].size(), 1u);
  EXPECT_EQ(run.report["dynamic"]["ops"][0]["how"], "tests");
  // A CPU variant's tests see no GPU: one that asks for it tested nothing of the variant.
  std::map<std::string, json> tests;
  for (const json& test : run.report["dynamic"]["tests"]) tests[test["test"].get<std::string>()] = test;
  ASSERT_TRUE(tests.contains("tests/test_scale.py::test_on_the_gpu")) << run.report["dynamic"]["tests"].dump(1);
  const json& gpu = tests["tests/test_scale.py::test_on_the_gpu"];
  EXPECT_EQ(gpu["outcome"], "skipped");
  EXPECT_NE(gpu["message"].get<std::string>().find("needs a GPU, which kcheck hides from a CPU variant's tests"),
            std::string::npos)
      << gpu["message"];
  EXPECT_EQ(tests["tests/test_scale.py::test_scale_doubles"]["outcome"], "passed");
}

TEST(PythonOnlyRun, AnImportThatRaisesIsKD001WithTheError) {
  const fs::path kernel = built_noarch_kernel("python-only-raises");
  // After the build, as a broken upload would be: the package raises on import.
  std::ofstream(kernel / "build/torch-cpu/__init__.py", std::ios::app)
      << "\nraise RuntimeError('planted: this package cannot be imported')\n";
  const KcheckRun run = run_kcheck(kernel, "");
  ASSERT_TRUE(run.report.is_object()) << run.result.out << run.result.err;
  EXPECT_EQ(run.result.exit_code, 1);
  EXPECT_EQ(codes(run.report), (std::multiset<std::string>{"KD001", "KD005"})) << run.report["findings"].dump(1);
  for (const json& finding : run.report["findings"])
    if (finding["code"] == "KD001") {
      const std::string message = finding["message"];
      EXPECT_NE(message.find("importing the Python-only variant's package (__init__.py) failed"), std::string::npos)
          << message;
      EXPECT_NE(message.find("planted: this package cannot be imported"), std::string::npos) << message;
    }
  EXPECT_EQ(run.report["verdict"], "fail");
}

TEST(PythonOnlyRun, AnImportThatExitsIsKD001AndNothingIsPassed) {
  const fs::path kernel = built_noarch_kernel("python-only-exits");
  std::ofstream(kernel / "build/torch-cpu/__init__.py", std::ios::app) << "\nimport os\nos._exit(0)\n";
  const KcheckRun run = run_kcheck(kernel, "");
  ASSERT_TRUE(run.report.is_object()) << run.result.out << run.result.err;
  EXPECT_EQ(run.result.exit_code, 1);
  EXPECT_EQ(codes(run.report), (std::multiset<std::string>{"KD001", "KD005"})) << run.report["findings"].dump(1);
  for (const json& finding : run.report["findings"]) {
    if (finding["code"] != "KD001") continue;
    EXPECT_NE(finding["message"].get<std::string>().find("exit status 0 before the load finished"), std::string::npos)
        << finding["message"];
  }
}

}  // namespace
