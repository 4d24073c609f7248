// Suppressions in the kernel repository (kcheck.toml, or pyproject.toml's
// [tool.kcheck]): glob paths, reasons carried into the report, KC006 for a
// suppression without a reason, and a clear error for a broken file.
#include "checker/core/suppressions.h"

#include <gtest/gtest.h>

#include "checker/audit/audit.h"
#include "tests/report/report_test_support.h"

namespace kcheck {
namespace {

using namespace kcheck::testing;

constexpr const char* kCpu = "torch212-cxx11-cpu-x86_64-linux";

TEST(Suppressions, GlobsMatchWholeSegments) {
  EXPECT_TRUE(glob_matches("build/*/notes.txt", "build/torch212-cxx11-cpu-x86_64-linux/notes.txt"));
  EXPECT_FALSE(glob_matches("build/*/notes.txt", "build/v/sub/notes.txt"));
  EXPECT_FALSE(glob_matches("build/*/notes.txt", "build/v/notes.txt.bak"));
  EXPECT_TRUE(glob_matches("**/*.pyc", "build/v/__pycache__/_ops.cpython-311.pyc"));
  EXPECT_TRUE(glob_matches("**/*.pyc", "x.pyc"));
  EXPECT_TRUE(glob_matches("build/**", "build/v/relu.o"));
  EXPECT_TRUE(glob_matches("build/**/relu.o", "build/v/relu.o"));
  EXPECT_TRUE(glob_matches("build/v/relu.?", "build/v/relu.o"));
  EXPECT_FALSE(glob_matches("build/v/relu.?", "build/v/relu.so"));
  EXPECT_FALSE(glob_matches("*.o", "build/v/relu.o")) << "* stays inside one segment";
  EXPECT_TRUE(glob_matches("./build/v/relu.o", "build/v/relu.o"));
}

TEST(Suppressions, ReadsEntriesWithTheirLines) {
  SuppressionConfig config = parse_suppressions(R"(# kcheck.toml
ignore = [
  {code = "KL005", path = "build/*/relu.o", reason = "object kept for the demo"},
  {code = "KP"},
]
)",
                                                "kcheck.toml");
  EXPECT_EQ(config.file, "kcheck.toml");
  ASSERT_EQ(config.entries.size(), 2u);
  EXPECT_EQ(config.entries[0].code, "KL005");
  EXPECT_EQ(config.entries[0].path, "build/*/relu.o");
  EXPECT_EQ(config.entries[0].reason, "object kept for the demo");
  EXPECT_EQ(config.entries[0].line, 3);
  EXPECT_EQ(config.entries[1].code, "KP");
  EXPECT_EQ(config.entries[1].reason, "");
  EXPECT_EQ(config.entries[1].line, 4);
}

TEST(Suppressions, PyprojectUsesTheToolKcheckTable) {
  SuppressionConfig config = parse_suppressions(R"([project]
name = "relu"

[tool.kcheck]
ignore = [{code = "KE012", reason = "debug build for a bug report"}]
)",
                                                "/some/repo/pyproject.toml");
  EXPECT_EQ(config.file, "pyproject.toml");
  ASSERT_EQ(config.entries.size(), 1u);
  EXPECT_EQ(config.entries[0].code, "KE012");
  EXPECT_EQ(config.entries[0].line, 5);
  EXPECT_TRUE(parse_suppressions("[project]\nname = \"relu\"\n", "pyproject.toml").entries.empty());
  EXPECT_TRUE(parse_suppressions("[project]\nignore = 3\n", "pyproject.toml").entries.empty())
      << "only [tool.kcheck] is kcheck's";
}

void expect_error(const std::string& text, const std::string& message_part) {
  try {
    parse_suppressions(text, "/repo/kcheck.toml");
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const SuppressionConfigError& error) {
    EXPECT_NE(std::string(error.what()).find(message_part), std::string::npos) << error.what();
  }
}

TEST(Suppressions, ABrokenFileIsAnErrorNamingTheFileAndLine) {
  expect_error("ignore = [\n  {code = \"KL005\" reason = \"x\"},\n]\n", "/repo/kcheck.toml:2: not valid TOML");
  expect_error("ignore = \"KL005\"\n", "/repo/kcheck.toml:1: 'ignore' must be an array of tables");
  expect_error("ignore = [\"KL005\"]\n", "/repo/kcheck.toml:1: every 'ignore' entry must be a table");
  expect_error("ignore = [\n  {path = \"build/**\", reason = \"x\"},\n]\n", "/repo/kcheck.toml:2: ignore entry needs a rule code");
  expect_error("ignore = [\n  {code = \"KL005\", reson = \"typo\"},\n]\n",
               "/repo/kcheck.toml:2: ignore entry: unknown key 'reson'");
  expect_error("ignore = [{code = 5}]\n", "/repo/kcheck.toml:1: ignore entry: 'code' must be a string");
}

TEST(Suppressions, MatchByCodePrefixAndPathWithTheEntrysReason) {
  SuppressionConfig config{"kcheck.toml",
                           {{"KL005", "build/*/relu.o", "kept on purpose", 2}, {"KP", "", "", 3}}};
  Findings findings = {
      {"KL005", Severity::warning, "m", kCpu, "build/v/relu.o", {}},
      {"KL005", Severity::warning, "m", kCpu, "build/v/__pycache__", {}},
      {"KP003", Severity::error, "m", kCpu, "build/v/x.py", {.line = 3}},
      {"KE001", Severity::error, "m", kCpu, "build/v/relu.o", {}},
  };
  apply_suppressions(config, "", findings);
  EXPECT_TRUE(findings[0].suppressed);
  EXPECT_EQ(findings[0].suppression_reason, "kept on purpose");
  EXPECT_FALSE(findings[1].suppressed);
  EXPECT_TRUE(findings[2].suppressed);
  EXPECT_EQ(findings[2].suppression_reason, "kcheck.toml:3 (no reason given)");
  EXPECT_FALSE(findings[3].suppressed);
}

TEST(Suppressions, AVariantAuditFindsTheRepositoryAboveBuild) {
  SuppressionScope variant = suppression_scope("/repo/build/v");
  EXPECT_EQ(variant.repository_root, fs::path("/repo"));
  EXPECT_EQ(variant.prefix, "build/v/");
  SuppressionScope module_dir = suppression_scope("/repo/build/v/sub");
  EXPECT_EQ(module_dir.repository_root, fs::path("/repo"));
  EXPECT_EQ(module_dir.prefix, "build/v/sub/");
  SuppressionScope elsewhere = suppression_scope("/somewhere/v");
  EXPECT_EQ(elsewhere.repository_root, fs::path("/somewhere/v"));
  EXPECT_EQ(elsewhere.prefix, "");
}

// The KL005 fixture (a __pycache__ and an object file in one variant) with a kcheck.toml.
fs::path repository_with_config(const std::string& file_name, const std::string& config) {
  fs::path repository = scratch_dir() / "repo";
  fs::remove_all(repository);
  fs::copy(fs::path(KCHECK_TREE_FIXTURES_DIR) / "kl005_files_that_must_not_ship", repository,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::remove(repository / "expected.toml");
  std::ofstream(repository / file_name, std::ios::binary) << config;
  return repository;
}

const std::string kConfig = R"(ignore = [
  {code = "KL005", path = "build/*/relu.o", reason = "the object file documents the build"},
  {code = "KL005", path = "build/**/__pycache__"},
]
)";

TEST(Suppressions, AuditCountsSuppressedFindingsAndWarnsOfAMissingReason) {
  fs::path repository = repository_with_config("kcheck.toml", kConfig);
  Report report = run_audit(repository, load_policy("hub"), AuditOptions{}, make_rule_registry());
  int kl005 = 0, kc006 = 0;
  for (const Finding& finding : report.findings) {
    if (finding.code == "KL005") {
      ++kl005;
      EXPECT_TRUE(finding.suppressed) << finding.file;
      if (finding.file.ends_with("relu.o")) EXPECT_EQ(finding.suppression_reason, "the object file documents the build");
      else EXPECT_EQ(finding.suppression_reason, "kcheck.toml:3 (no reason given)");
    }
    if (finding.code == "KC006") {
      ++kc006;
      EXPECT_EQ(finding.severity, Severity::warning);
      EXPECT_EQ(finding.file, "kcheck.toml");
      EXPECT_EQ(finding.location.line, 3);
      EXPECT_NE(finding.message.find("KL005 on build/**/__pycache__ gives no reason"), std::string::npos)
          << finding.message;
    }
  }
  EXPECT_EQ(kl005, 2);
  EXPECT_EQ(kc006, 1);
  EXPECT_EQ(report.summary.suppressed, 2);
  EXPECT_EQ(report.summary.warnings, 1);
  EXPECT_EQ(report.summary.errors, 0);
}

TEST(Suppressions, PyprojectToolKcheckWorksTheSame) {
  fs::path repository = repository_with_config(
      "pyproject.toml", "[project]\nname = \"relu\"\n\n[tool.kcheck]\nignore = [{code = \"KL005\", reason = \"demo\"}]\n");
  Report report = run_audit(repository, load_policy("hub"), AuditOptions{}, make_rule_registry());
  EXPECT_EQ(report.summary.suppressed, 2);
  EXPECT_EQ(report.summary.warnings, 0);
}

TEST(Suppressions, AVariantAuditAppliesTheRepositorysSuppressions) {
  fs::path repository = repository_with_config("kcheck.toml", kConfig);
  Report report =
      run_audit(repository / "build" / kCpu, load_policy("hub"), AuditOptions{}, make_rule_registry());
  int suppressed_kl005 = 0;
  for (const Finding& finding : report.findings)
    suppressed_kl005 += finding.code == "KL005" && finding.suppressed;
  EXPECT_EQ(suppressed_kl005, 2);
}

TEST(Suppressions, TheCommandLineGatesOnTheWarningAndShowsTheReason) {
  fs::path repository = repository_with_config("kcheck.toml", kConfig);
  RunResult plain = kcheck("--format markdown " + shell_quoted(repository));
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find("*(suppressed: the object file documents the build)*"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("· 2 suppressed"), std::string::npos) << plain.out;
  EXPECT_EQ(kcheck("--strict " + shell_quoted(repository)).exit_code, 1) << "KC006 is a warning";
  EXPECT_EQ(kcheck("--ignore KC006 --strict " + shell_quoted(repository)).exit_code, 0);
}

TEST(Suppressions, ABrokenConfigExitsTwoWithOneLineNamingFileAndLine) {
  fs::path repository = repository_with_config("kcheck.toml", "ignore = [\n  {code = \"KL005\" reason = \"x\"},\n]\n");
  RunResult run = kcheck(shell_quoted(repository));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find((repository / "kcheck.toml").string() + ":2: not valid TOML"), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

}  // namespace
}  // namespace kcheck
