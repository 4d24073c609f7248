// The Hub-side profile, `--security`: KP006 becomes an error, only
// structured formats are written, kernel code is never built or run, and
// the walk bounds (--max-file-size, --max-files, --max-depth) are reported
// when reached.
#include <gtest/gtest.h>

#include "tests/security/security_test_support.h"

namespace kcheck::security_test {
namespace {

fs::path fixture(const std::string& name) { return fs::path(KCHECK_TREE_FIXTURES_DIR) / name; }

class SecurityProfile : public ::testing::Test {
 protected:
  Outcome kcheck(const std::vector<std::string>& arguments) { return run_kcheck(arguments, Bounds{}, scratch_.path()); }
  ScratchDir scratch_;
};

std::vector<std::string> severities(const nlohmann::json& report, const std::string& code) {
  std::vector<std::string> found;
  for (const nlohmann::json& finding : report.value("findings", nlohmann::json::array()))
    if (finding.value("code", "") == code) found.push_back(finding.value("severity", ""));
  return found;
}

TEST_F(SecurityProfile, MakesKp006AnErrorThatFailsTheGate) {
  const std::string variant =
      (fixture("kp006_subprocess_at_import") / "build/torch212-cxx11-cpu-x86_64-linux").string();
  const Outcome plain = kcheck({"--format", "json", variant});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(severities(plain.report, "KP006"), std::vector<std::string>{"warning"});
  const Outcome secure = kcheck({"--security", "--format", "json", variant});
  EXPECT_EQ(secure.exit_code, 1) << secure.err;
  EXPECT_EQ(severities(secure.report, "KP006"), std::vector<std::string>{"error"});
}

TEST_F(SecurityProfile, WritesStructuredOutputOnly) {
  const std::string tree = fixture("clean_cpu_variants_from_template").string();
  for (const char* format : {"json", "sarif", "junit"}) {
    const Outcome outcome = kcheck({"--security", "--format", format, tree});
    EXPECT_EQ(outcome.exit_code, 0) << format << ": " << outcome.err;
  }
  for (const std::vector<std::string>& arguments : {std::vector<std::string>{"--security", tree},
                                                    {"--security", "--format", "text", tree},
                                                    {"--security", "--format", "markdown", tree}}) {
    const Outcome outcome = kcheck(arguments);
    EXPECT_EQ(outcome.exit_code, 2);
    EXPECT_TRUE(outcome.out.empty()) << outcome.out;
    EXPECT_NE(outcome.err.find("structured output only"), std::string::npos) << outcome.err;
  }
}

TEST_F(SecurityProfile, NeverBuildsOrRunsKernelCode) {
  const Outcome run =
      kcheck({"run", "--security", "--format", "json", fixture("clean_cpu_variants_from_template").string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("`kcheck run` executes kernel code; --security forbids it"), std::string::npos) << run.err;
  const Outcome build = kcheck(
      {"build", "--security", "--format", "json", (fs::path(KCHECK_SOURCE_DIR) / "reference/kernels/relu").string(),
       "--output-dir", (scratch_.path() / "out").string(), "--scratch-dir", (scratch_.path() / "scratch").string()});
  EXPECT_EQ(build.exit_code, 2);
  EXPECT_NE(build.err.find("`kcheck build` executes kernel code; --security forbids it"), std::string::npos)
      << build.err;
  EXPECT_FALSE(fs::exists(scratch_.path() / "scratch"));
}

TEST_F(SecurityProfile, FileSizeBoundIsConfigurableAndReported) {
  const std::string variant = "build/torch212-cxx11-cpu-x86_64-linux";
  const Outcome outcome = kcheck({"--security", "--format", "json", "--max-file-size", "4K",
                                  fixture("clean_cpu_variants_from_template").string()});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.err;
  // The native modules (about 15 KB) are over 4 KiB: reported, neither read nor hashed.
  const auto reasons = messages(outcome.report, "KL007", variant + "/_relu_cpu_0a1b2c3.abi3.so");
  ASSERT_EQ(reasons.size(), 1u) << outcome.out.substr(0, 3000);
  EXPECT_NE(reasons[0].find("above the size bound of 4096 bytes"), std::string::npos) << reasons[0];
  EXPECT_TRUE(messages(outcome.report, "KE007", variant + "/_relu_cpu_0a1b2c3.abi3.so").empty());

  const Outcome bad = kcheck({"--max-file-size", "lots", fixture("clean_cpu_variants_from_template").string()});
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
}  // namespace kcheck::security_test
