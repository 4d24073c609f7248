// Suppressions in the kernel repository (kcheck.toml, or pyproject.toml's
// [tool.kcheck]): glob paths, reasons carried into the report, KC006 for a
// suppression without a reason, and a clear error for a broken file.
#include "checker/audit/suppression_facts.h"
#include "checker/config/repository_config.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "checker/audit/audit.h"
#include "checker/support/embedded_files.h"
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
  EXPECT_TRUE(glob_matches("**", ""));
  EXPECT_TRUE(glob_matches("build/**/**/relu.o", "build/relu.o"));
  EXPECT_TRUE(glob_matches("b*d/*e*u*.o", "build/relu.o"));
  EXPECT_FALSE(glob_matches("b*d/*e*x*.o", "build/relu.o"));
}

// The hostile-input class of issue #14: stars that a backtracking matcher
// explores exponentially (30 stars over 200 characters, 60 `**` over 300
// segments) complete here; the CTest timeout is what would fail.
TEST(Suppressions, GlobsThatWouldExplodeABacktrackingMatcherAreLinear) {
  std::string stars;
  for (int i = 0; i < 30; ++i) stars += "*a";
  EXPECT_FALSE(glob_matches(stars + "*b", std::string(200, 'a')));
  EXPECT_TRUE(glob_matches(stars + "*", std::string(200, 'a')));
  std::string deep_pattern, deep_path;
  for (int i = 0; i < 60; ++i) deep_pattern += "**/a/";
  for (int i = 0; i < 300; ++i) deep_path += "a/";
  EXPECT_FALSE(glob_matches(deep_pattern + "b", deep_path + "c"));
  EXPECT_TRUE(glob_matches(deep_pattern + "**", deep_path));
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
  expect_error("ignore = \"KL005\"\n", "/repo/kcheck.toml:1: 'ignore' must be an array of rule codes and tables");
  expect_error("ignore = [5]\n", "/repo/kcheck.toml:1: every 'ignore' entry must be a rule code \"KE014\" or a table");
  expect_error("ignore = [\n  {path = \"build/**\", reason = \"x\"},\n]\n",
               "/repo/kcheck.toml:2: ignore entry needs a rule code");
  expect_error("ignore = [\n  {code = \"KL005\", reson = \"typo\"},\n]\n",
               "/repo/kcheck.toml:2: ignore entry: unknown key 'reson'");
  expect_error("ignore = [{code = 5}]\n", "/repo/kcheck.toml:1: ignore entry: 'code' must be a string");
  expect_error("ignore = []\nignroe = []\n",
               "/repo/kcheck.toml:2: unknown key 'ignroe' (kcheck.toml knows: ignore, per-file-ignores, policy, "
               "select, strict)");
}

Findings findings_to_suppress() {
  return {
      {"KL005", Severity::warning, "m", kCpu, "build/v/relu.o", {}},
      {"KL005", Severity::warning, "m", kCpu, "build/v/__pycache__", {}},
      {"KP003", Severity::error, "m", kCpu, "build/v/x.py", {.line = 3}},
      {"KE001", Severity::error, "m", kCpu, "build/v/relu.o", {}},
  };
}

TEST(Suppressions, MatchByCodePrefixAndPathWithTheEntrysReason) {
  SuppressionConfig config{"kcheck.toml", {{"KL005", "build/*/relu.o", "kept on purpose", 2}, {"KP", "", "", 3}}};
  Findings findings = findings_to_suppress();
  apply_suppressions(config, "", SuppressionTrust{.code_prefixes_allowed = true}, findings);
  EXPECT_TRUE(findings[0].suppressed);
  EXPECT_EQ(findings[0].suppression_reason, "kept on purpose");
  EXPECT_FALSE(findings[1].suppressed);
  EXPECT_TRUE(findings[2].suppressed);
  EXPECT_EQ(findings[2].suppression_reason, "kcheck.toml:3 (no reason given)");
  EXPECT_FALSE(findings[3].suppressed);
}

TEST(Suppressions, APrefixIsNotAppliedUnlessThePolicyAllowsIt) {
  SuppressionConfig config{"kcheck.toml",
                           {{"KL005", "build/*/relu.o", "kept", 2}, {"KP", "", "wide", 3}, {"K", "", "", 4}}};
  Findings findings = findings_to_suppress();
  apply_suppressions(config, "", SuppressionTrust{}, findings);
  EXPECT_TRUE(findings[0].suppressed) << "one rule: applied";
  EXPECT_FALSE(findings[2].suppressed) << "KP is wider than one rule";
  EXPECT_FALSE(findings[3].suppressed) << "K is wider than one rule";
  EXPECT_EQ(why_suppression_not_applied(config.entries[1], SuppressionTrust{}),
            "'KP' is wider than one rule, and the policy allows only whole rule codes");
  EXPECT_TRUE(is_single_rule_code("KL005"));
  EXPECT_FALSE(is_single_rule_code("KL00"));
  EXPECT_FALSE(is_single_rule_code("KL0051"));
  EXPECT_FALSE(is_single_rule_code("kl005"));
}

TEST(Suppressions, AnUntrustedRepositoryConfigAppliesNothing) {
  SuppressionConfig config{"kcheck.toml", {{"KL005", "", "kept", 2}, {"KE001", "", "kept", 3}}};
  Findings findings = findings_to_suppress();
  apply_suppressions(config, "", SuppressionTrust{.repository_config_applied = false, .code_prefixes_allowed = true},
                     findings);
  for (const Finding& finding : findings) EXPECT_FALSE(finding.suppressed) << finding.code;
}

// Matching (findings x entries x glob) is inside the repository's budget too.
TEST(Suppressions, MatchingPastTheDeadlineIsATimeout) {
  SuppressionConfig config{"kcheck.toml", {{"KL005", "build/**", "kept", 2}}};
  Findings findings = findings_to_suppress();
  EXPECT_THROW(
      apply_suppressions(config, "", SuppressionTrust{}, findings, AuditDeadline::after(std::chrono::seconds(0))),
      AuditTimeout);
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
      if (finding.file.ends_with("relu.o"))
        EXPECT_EQ(finding.suppression_reason, "the object file documents the build");
      else
        EXPECT_EQ(finding.suppression_reason, "kcheck.toml:3 (no reason given)");
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

// Like ruff's RUF100: an entry that hid nothing among the rules that ran is a
// KC007 note; one that names no rule at all (a typo) is a KC007 error; one
// for a rule that did not run (--select) is not judged.
TEST(Suppressions, AnEntryThatMatchedNothingIsANoteAndAMistypedCodeAnError) {
  fs::path repository = repository_with_config("kcheck.toml", R"(ignore = [
  {code = "KL005", reason = "the object file and the cache"},
  {code = "KP002", path = "build/*/gone.py", reason = "the finding was fixed long ago"},
  {code = "KL05", reason = "a typo"},
]
)");
  const Report report = run_audit(repository, load_policy("hub"), AuditOptions{}, make_rule_registry());
  std::vector<std::pair<int, Severity>> kc007;
  for (const Finding& finding : report.findings) {
    if (finding.code != "KC007") continue;
    kc007.emplace_back(finding.location.line, finding.severity);
    if (finding.location.line == 3) {
      EXPECT_NE(finding.message.find("matched no finding"), std::string::npos) << finding.message;
    }
    if (finding.location.line == 4) {
      EXPECT_NE(finding.message.find("names no rule"), std::string::npos) << finding.message;
    }
  }
  std::sort(kc007.begin(), kc007.end());
  EXPECT_EQ(kc007, (std::vector<std::pair<int, Severity>>{{3, Severity::note}, {4, Severity::error}}));
  EXPECT_EQ(report.summary.suppressed, 2) << "the first entry still applies";

  AuditOptions only_layout;
  only_layout.selection.select = {"KL", "KC"};
  const Report selected = run_audit(repository, load_policy("hub"), only_layout, make_rule_registry());
  for (const Finding& finding : selected.findings)
    EXPECT_FALSE(finding.code == "KC007" && finding.location.line == 3) << "KP002 did not run: " << finding.message;
}

TEST(Suppressions, PyprojectToolKcheckWorksTheSame) {
  fs::path repository = repository_with_config(
      "pyproject.toml",
      "[project]\nname = \"relu\"\n\n[tool.kcheck]\nignore = [{code = \"KL005\", reason = \"demo\"}]\n");
  Report report = run_audit(repository, load_policy("hub"), AuditOptions{}, make_rule_registry());
  EXPECT_EQ(report.summary.suppressed, 2);
  EXPECT_EQ(report.summary.warnings, 0);
}

TEST(Suppressions, AVariantAuditAppliesTheRepositorysSuppressions) {
  fs::path repository = repository_with_config("kcheck.toml", kConfig);
  Report report = run_audit(repository / "build" / kCpu, load_policy("hub"), AuditOptions{}, make_rule_registry());
  int suppressed_kl005 = 0;
  for (const Finding& finding : report.findings) suppressed_kl005 += finding.code == "KL005" && finding.suppressed;
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

// The messages of a JSON report's findings of `code`, in report order.
std::vector<std::string> messages_of(const nlohmann::json& report, const std::string& code) {
  std::vector<std::string> messages;
  for (const nlohmann::json& finding : report["findings"])
    if (finding["code"] == code) messages.push_back(finding["message"]);
  return messages;
}

using SeverityAndMessage = std::pair<std::string, std::string>;
std::vector<SeverityAndMessage> severities_and_messages_of(const nlohmann::json& report, const std::string& code) {
  std::vector<SeverityAndMessage> found;
  for (const nlohmann::json& finding : report["findings"])
    if (finding["code"] == code) found.emplace_back(finding["severity"], finding["message"]);
  return found;
}

// Hub side, an upload must not decide its own verdict: its suppressions are
// notes (KC007), and the findings they would hide fail the gate.
TEST(Suppressions, SecurityAndNoRepoConfigReportButDoNotApply) {
  fs::path repository = repository_with_config(
      "kcheck.toml",
      "ignore = [\n  {code = \"KL005\", reason = \"trust me\"},\n  {code = \"K\", reason = \"trust me\"},\n]\n");
  // The fixture's findings are KL005 warnings: --strict makes them fail the gate.
  RunResult plain = kcheck("--strict --format json " + shell_quoted(repository));
  EXPECT_EQ(plain.exit_code, 0) << plain.out;
  for (const std::string options : {"--strict --security --format json ", "--strict --no-repo-config --format json ",
                                    "--format json --no-repo-config --strict "}) {
    RunResult run = kcheck(options + shell_quoted(repository));
    EXPECT_EQ(run.exit_code, 1) << options << run.err;
    nlohmann::json report = nlohmann::json::parse(run.out);
    int kl005 = 0;
    for (const nlohmann::json& finding : report["findings"])
      if (finding["code"] == "KL005") kl005 += !finding.value("suppressed", false);
    const std::vector<std::string> kc007 = messages_of(report, "KC007");
    EXPECT_EQ(kl005, 2) << options;
    ASSERT_EQ(kc007.size(), 2u) << options;
    EXPECT_EQ(kc007[0],
              "kcheck.toml:2: the suppression of KL005 is not applied: repository suppressions are "
              "reported, not applied (--security or --no-repo-config)");
  }
}

TEST(Suppressions, APrefixEntryIsANoteAndSuppressesNothing) {
  fs::path repository = repository_with_config("kcheck.toml", "ignore = [{code = \"K\", reason = \"trust me\"}]\n");
  RunResult run = kcheck("--strict --format json " + shell_quoted(repository));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["summary"]["suppressed"], 0);
  EXPECT_EQ(messages_of(report, "KC007"),
            std::vector<std::string>{"kcheck.toml:1: the suppression of K is not applied: 'K' is wider than one "
                                     "rule, and the policy allows only whole rule codes"});
}

TEST(Suppressions, TheConfigIsReadInsideTheRepositoryAndBounded) {
  fs::path outside = scratch_dir() / "outside.toml";
  std::ofstream(outside) << "ignore = [{code = \"KL005\", reason = \"from outside\"}]\n";
  fs::path repository = repository_with_config("pyproject.toml", "");
  fs::remove(repository / "pyproject.toml");
  fs::create_symlink(outside, repository / "kcheck.toml");
  // Not applied, and a finding; the audit goes on (issue #28 item 10).
  RunResult link = kcheck("--format json " + shell_quoted(repository));
  EXPECT_EQ(link.exit_code, 1) << link.err;
  const nlohmann::json linked = nlohmann::json::parse(link.out);
  ASSERT_EQ(messages_of(linked, "KC007").size(), 1u) << link.out;
  EXPECT_TRUE(messages_of(linked, "KC007")[0].starts_with("kcheck.toml: a link that leaves the repository; not read"))
      << messages_of(linked, "KC007")[0];
  EXPECT_FALSE(messages_of(linked, "KL005").empty()) << "the outside file's suppression was applied";

  fs::remove(repository / "kcheck.toml");
  {
    std::ofstream sparse(repository / "pyproject.toml", std::ios::binary);
    sparse.seekp((std::streamoff{3} << 30) - 1);
    sparse.put('\n');
  }
  RunResult huge = kcheck("--format json " + shell_quoted(repository));
  EXPECT_EQ(huge.exit_code, 1) << huge.err;
  const nlohmann::json large = nlohmann::json::parse(huge.out);
  ASSERT_EQ(messages_of(large, "KC007").size(), 1u) << huge.out;
  EXPECT_NE(messages_of(large, "KC007")[0].find("pyproject.toml: 3221225472 bytes, above the bound of 1048576"),
            std::string::npos)
      << messages_of(large, "KC007")[0];
}

// Issue #28 item 10: a config kcheck cannot use is the upload's problem, an
// error naming the file and line; it must not stop the audit (an upload
// could hide its real errors behind it).
TEST(Suppressions, ABrokenConfigIsAKc007ErrorNamingFileAndLineAndTheAuditGoesOn) {
  fs::path repository = repository_with_config("kcheck.toml", "ignore = [\n  {code = \"KL005\" reason = \"x\"},\n]\n");
  for (const char* profile : {"", "--security "}) {
    RunResult run = kcheck(std::string(profile) + "--format json " + shell_quoted(repository));
    EXPECT_EQ(run.exit_code, 1) << run.err;
    const nlohmann::json report = nlohmann::json::parse(run.out);
    ASSERT_EQ(messages_of(report, "KC007").size(), 1u) << run.out;
    EXPECT_TRUE(messages_of(report, "KC007")[0].starts_with("kcheck.toml:2: not valid TOML"))
        << messages_of(report, "KC007")[0];
    EXPECT_FALSE(messages_of(report, "KL005").empty()) << profile;
  }
}

// kcheck.toml settings besides suppressions (issue #15), as ruff reads its own.
TEST(RepositorySettings, AreReadWithTheirLines) {
  SuppressionConfig config = parse_suppressions(R"(policy = "hub-legacy"
select = ["KL", "KE001"]
strict = true
ignore = [
  "KE014",
  {code = "KL005", path = "build/*/relu.o", reason = "kept"},
]

[per-file-ignores]
"build/*/_vendor/**" = ["KP003", "KP001"]
"build/*/tests/**" = {codes = ["KP002"], reason = "test helpers"}
)",
                                                "kcheck.toml");
  const RepositorySettings& settings = config.settings;
  EXPECT_EQ(settings.policy, "hub-legacy");
  EXPECT_EQ(settings.policy_line, 1);
  ASSERT_TRUE(settings.select);
  ASSERT_EQ(settings.select->size(), 2u);
  EXPECT_EQ((*settings.select)[1].code, "KE001");
  EXPECT_EQ((*settings.select)[1].line, 2);
  EXPECT_EQ(settings.strict, true);
  ASSERT_EQ(settings.ignore.size(), 1u);
  EXPECT_EQ(settings.ignore[0].code, "KE014");
  EXPECT_EQ(settings.ignore[0].line, 5);
  ASSERT_EQ(config.entries.size(), 4u) << "one table entry, three per-file codes";
  EXPECT_EQ(config.entries[0].key, "ignore");
  EXPECT_EQ(config.entries[1].code, "KP003");
  EXPECT_EQ(config.entries[1].path, "build/*/_vendor/**");
  EXPECT_EQ(config.entries[1].key, "per-file-ignores");
  EXPECT_EQ(config.entries[1].line, 10);
  EXPECT_EQ(config.entries[1].reason, "");
  EXPECT_EQ(config.entries[3].code, "KP002");
  EXPECT_EQ(config.entries[3].reason, "test helpers");
  EXPECT_EQ(config.entries[3].line, 11);
}

TEST(RepositorySettings, AWrongShapeIsAnErrorNamingTheFileAndLine) {
  expect_error("\npolicy = 3\n", "/repo/kcheck.toml:2: 'policy' must be a policy name");
  expect_error("select = \"KE\"\n", "/repo/kcheck.toml:1: 'select' must be an array of rule codes");
  expect_error("select = [\n  1,\n]\n", "/repo/kcheck.toml:2: 'select' holds rule codes");
  expect_error("strict = \"yes\"\n", "/repo/kcheck.toml:1: 'strict' must be true or false");
  expect_error("per-file-ignores = [\"KP003\"]\n", "/repo/kcheck.toml:1: 'per-file-ignores' must be a table");
  expect_error("[per-file-ignores]\n\"x/**\" = {codes = [\"KP003\"], reson = \"typo\"}\n",
               "/repo/kcheck.toml:2: per-file-ignores: unknown key 'reson' (codes, reason)");
  expect_error("[per-file-ignores]\n\"x/**\" = {reason = \"no codes\"}\n",
               "/repo/kcheck.toml:2: per-file-ignores: 'x/**' needs codes");
}

TEST(RepositorySettings, EntriesAndReasonsAreBoundedAsTheyAreRead) {
  expect_error("ignore = [{code = \"KL005\", reason = \"" + std::string(1025, 'r') + "\"}]\n",
               "/repo/kcheck.toml:1: ignore entry: reason is longer than 1024 characters");
  expect_error("[per-file-ignores]\n\"x/**\" = {codes = [\"KP003\"], reason = \"" + std::string(1025, 'r') + "\"}\n",
               "/repo/kcheck.toml:2: per-file-ignores: reason is longer than 1024 characters");
  expect_error("[per-file-ignores]\n\"" + std::string(1025, 'g') + "\" = [\"KP003\"]\n",
               "/repo/kcheck.toml:2: per-file-ignores: a glob longer than 1024 characters");
  // 3 globs of 400 codes: refused at the 1001st entry, before the rest is built.
  std::string many = "[per-file-ignores]\n";
  for (int glob = 0; glob < 3; ++glob) {
    many += "\"g" + std::to_string(glob) + "/**\" = [";
    for (int code = 0; code < 400; ++code) many += "\"KP003\",";
    many += "]\n";
  }
  expect_error(many, "/repo/kcheck.toml:4: more than 1000 ignore entries");
}

// The KL005 fixture gives two KL005 warnings: its exit is 0, 1 under strict.
nlohmann::json audit_json(const fs::path& repository, const std::string& options, int expected_exit) {
  RunResult run = kcheck(options + " --format json " + shell_quoted(repository));
  EXPECT_EQ(run.exit_code, expected_exit) << options << "\n" << run.err << run.out;
  nlohmann::json report = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_FALSE(report.is_discarded()) << run.out;
  return report;
}

std::vector<std::string> codes_of(const nlohmann::json& report, const std::string& prefix = "") {
  std::vector<std::string> codes;
  for (const nlohmann::json& finding : report["findings"])
    if (finding["code"].get<std::string>().starts_with(prefix)) codes.push_back(finding["code"]);
  return codes;
}

TEST(RepositorySettings, StrictSelectAndIgnoreApplyWhereTheCommandLineSaysNothing) {
  fs::path strict = repository_with_config("kcheck.toml", "strict = true\n");
  EXPECT_EQ(audit_json(strict, "", 1)["strict"], true);

  fs::path ignoring = repository_with_config("kcheck.toml", "strict = true\nignore = [\"KL005\"]\n");
  nlohmann::json ignored = audit_json(ignoring, "", 0);
  EXPECT_TRUE(codes_of(ignored, "KL").empty()) << ignored["findings"].dump();
  ASSERT_FALSE(ignored["rules_run"].empty());
  for (const nlohmann::json& code : ignored["rules_run"]) EXPECT_NE(code, "KL005");
  EXPECT_EQ(audit_json(ignoring, "--ignore KC", 0)["summary"]["warnings"], 0)
      << "the command line's --ignore adds to it";

  fs::path selecting = repository_with_config("kcheck.toml", "select = [\"KM\", \"KC\"]\nstrict = true\n");
  nlohmann::json selected = audit_json(selecting, "", 0);
  ASSERT_FALSE(selected["rules_run"].empty());
  for (const nlohmann::json& code : selected["rules_run"])
    EXPECT_TRUE(code.get<std::string>().starts_with("KM") || code.get<std::string>().starts_with("KC")) << code;
  nlohmann::json command_line = audit_json(selecting, "--select KL", 1);
  EXPECT_EQ(codes_of(command_line), (std::vector<std::string>{"KL005", "KL005"})) << "--select wins";
}

TEST(RepositorySettings, APolicyByNameOrRepositoryFileAndTheCommandLineWins) {
  fs::path named = repository_with_config("kcheck.toml", "policy = \"hub-legacy\"\n");
  EXPECT_EQ(audit_json(named, "", 0)["policy"]["name"], "hub-legacy");
  EXPECT_EQ(audit_json(named, "--policy hub", 0)["policy"]["name"], "hub");

  fs::path file = repository_with_config("kcheck.toml", "policy = \"policies/ours.toml\"\n");
  fs::create_directories(file / "policies");
  std::string ours(*find_embedded_file("rules/policies/hub.toml"));
  ours.replace(ours.find("name = \"hub\""), 12, "name = \"ours\"");
  std::ofstream(file / "policies" / "ours.toml") << ours;
  EXPECT_EQ(audit_json(file, "", 0)["policy"]["name"], "custom policy policies/ours.toml (the repository's)");

  // A policy that cannot be used is KC007, an error, and the audit goes on
  // with the caller's policy (issue #28): never exit 2 for the upload's file.
  auto policy_errors = [](const nlohmann::json& report) {
    std::vector<std::string> messages;
    for (const SeverityAndMessage& finding : severities_and_messages_of(report, "KC007"))
      if (finding.first == "error") messages.push_back(finding.second);
    return messages;
  };
  fs::path outside = repository_with_config("kcheck.toml", "policy = \"../outside.toml\"\n");
  std::ofstream(outside.parent_path() / "outside.toml") << *find_embedded_file("rules/policies/hub.toml");
  nlohmann::json escaped = audit_json(outside, "", 1);
  EXPECT_EQ(escaped["policy"]["name"], "hub");
  EXPECT_EQ(policy_errors(escaped),
            (std::vector<std::string>{"kcheck.toml:1: policy '../outside.toml': outside the repository; not read; "
                                      "the audit judges with the hub policy instead"}));
  EXPECT_EQ(codes_of(escaped, "KL"), (std::vector<std::string>{"KL005", "KL005"})) << "the rest of the audit runs";
  fs::remove(outside / "kcheck.toml");
  fs::create_symlink(outside.parent_path() / "outside.toml", outside / "linked.toml");
  std::ofstream(outside / "kcheck.toml") << "policy = \"linked.toml\"\n";
  EXPECT_EQ(policy_errors(audit_json(outside, "--policy hub-legacy", 0)), std::vector<std::string>{})
      << "a --policy given wins, and the repository's is not judged";
  EXPECT_EQ(policy_errors(audit_json(outside, "", 1)),
            (std::vector<std::string>{"kcheck.toml:1: policy 'linked.toml': a link that leaves the repository; not "
                                      "read; the audit judges with the hub policy instead"}));
  // Where the settings are not applied, the policy is only noted as not applied.
  EXPECT_EQ(kcheck("--security --format json " + shell_quoted(outside)).exit_code, 0);
  std::ofstream(outside / "kcheck.toml") << "policy = \"missing.toml\"\n";
  EXPECT_EQ(kcheck("--no-repo-config " + shell_quoted(outside)).exit_code, 0);
  EXPECT_EQ(policy_errors(audit_json(outside, "", 1)),
            (std::vector<std::string>{"kcheck.toml:1: policy 'missing.toml': neither an embedded policy nor a file "
                                      "of the repository; the audit judges with the hub policy instead"}));
  std::ofstream(outside / "broken.toml") << "name = [\n";
  std::ofstream(outside / "kcheck.toml") << "policy = \"broken.toml\"\n";
  const std::vector<std::string> broken = policy_errors(audit_json(outside, "", 1));
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_TRUE(broken[0].starts_with("kcheck.toml:1: policy 'broken.toml': ")) << broken[0];
  EXPECT_TRUE(broken[0].ends_with("; the audit judges with the hub policy instead")) << broken[0];
  // Whatever the caller selects: the fallback to its policy is never silent
  // (KL005 is a warning: the exit 1 is KC007's).
  const nlohmann::json selected = audit_json(outside, "--select KL005", 1);
  EXPECT_EQ(policy_errors(selected).size(), 1u);
  EXPECT_EQ(codes_of(selected, "KL"), (std::vector<std::string>{"KL005", "KL005"}));
  EXPECT_EQ(codes_of(audit_json(outside, "--select KL005 --policy hub", 0), "KC"), std::vector<std::string>{})
      << "a --policy given: nothing fell back";
}

// A repository's own policy file names itself as the repository's (it cannot
// pass for an embedded one) and cannot allow itself code prefixes.
TEST(RepositorySettings, ARepositoryPolicyCannotPassForAnotherOrWidenWhatItMayIgnore) {
  fs::path repository =
      repository_with_config("kcheck.toml", "policy = \"ours.toml\"\nstrict = true\nignore = [\"KL\"]\n");
  std::string ours(*find_embedded_file("rules/policies/hub.toml"));
  ours.replace(ours.find("code-prefixes = false"), 21, "code-prefixes = true");
  std::ofstream(repository / "ours.toml") << ours;
  nlohmann::json report = audit_json(repository, "", 1);
  EXPECT_EQ(report["policy"]["name"], "custom policy ours.toml (the repository's)")
      << "never the embedded policy's name the file gives itself";
  EXPECT_EQ(codes_of(report, "KL"), (std::vector<std::string>{"KL005", "KL005"})) << "the KL prefix was not applied";
}

// The rules that judge the config run whatever it selects or ignores.
TEST(RepositorySettings, TheConfigCannotSwitchOffTheRulesThatJudgeIt) {
  fs::path repository = repository_with_config("kcheck.toml", "select = [\"KL\"]\nignore = [\"KC007\", \"KX9\"]\n");
  nlohmann::json report = audit_json(repository, "", 1);
  EXPECT_EQ(severities_and_messages_of(report, "KC007"),
            (std::vector<SeverityAndMessage>{
                {"note",
                 "kcheck.toml:2: ignore \"KC007\" is not applied: the rules that judge kcheck.toml itself "
                 "(KC006, KC007) always run"},
                {"error", "kcheck.toml:2: ignore names 'KX9', no rule of this kcheck (`kcheck rules` lists them)"}}));
}

TEST(RepositorySettings, PerFileIgnoresSuppressWithTheirReasonAndWarnWithoutOne) {
  fs::path repository = repository_with_config("kcheck.toml", R"([per-file-ignores]
"build/*/relu.o" = {codes = ["KL005"], reason = "the object documents the build"}
"build/**/__pycache__" = ["KL005"]
)");
  nlohmann::json report = audit_json(repository, "", 0);
  EXPECT_EQ(report["summary"]["suppressed"], 2);
  EXPECT_EQ(messages_of(report, "KC006"),
            std::vector<std::string>{
                "kcheck.toml:3: the suppression of KL005 on build/**/__pycache__ gives no reason; write it as "
                "\"build/**/__pycache__\" = {codes = [...], reason = \"why\"}"});
}

// Under --security (and --no-repo-config) nothing of the repository's config
// is applied, and KC007 names each setting; a code naming no rule is an error.
TEST(RepositorySettings, SecurityReportsEverySettingAndAppliesNone) {
  fs::path repository = repository_with_config("kcheck.toml", R"(policy = "hub-legacy"
select = ["KM"]
ignore = ["KL005", "KL"]
strict = false
)");
  nlohmann::json trusted = audit_json(repository, "--strict", 0);
  EXPECT_EQ(trusted["policy"]["name"], "hub-legacy");
  EXPECT_EQ(messages_of(trusted, "KC007"),
            std::vector<std::string>{"kcheck.toml:3: ignore \"KL\" is not applied: 'KL' is wider than one rule, and "
                                     "the policy allows only whole rule codes"})
      << "select = [\"KM\"] applies, and KC007 runs whatever it selects";

  nlohmann::json untrusted = audit_json(repository, "--strict --security", 1);
  EXPECT_EQ(untrusted["policy"]["name"], "hub");
  const std::string why =
      " is not applied: repository settings are reported, not applied (--security or --no-repo-config)";
  EXPECT_EQ(messages_of(untrusted, "KC007"),
            (std::vector<std::string>{"kcheck.toml:1: policy = \"hub-legacy\"" + why,
                                      "kcheck.toml:2: select \"KM\"" + why, "kcheck.toml:3: ignore \"KL\"" + why,
                                      "kcheck.toml:3: ignore \"KL005\"" + why, "kcheck.toml:4: strict = false" + why}));
  EXPECT_EQ(codes_of(untrusted, "KL"), (std::vector<std::string>{"KL005", "KL005"}));
}

TEST(RepositorySettings, AnIgnorePrefixNeedsThePolicyAndAnUnknownCodeIsAnError) {
  fs::path repository =
      repository_with_config("kcheck.toml", "ignore = [\"KL\", \"KX9\"]\nselect = [\"KL\", \"KC\", \"KQ\"]\n");
  nlohmann::json report = audit_json(repository, "", 1);
  EXPECT_EQ(severities_and_messages_of(report, "KC007"),
            (std::vector<SeverityAndMessage>{
                {"note",
                 "kcheck.toml:1: ignore \"KL\" is not applied: 'KL' is wider than one rule, and the "
                 "policy allows only whole rule codes"},
                {"error", "kcheck.toml:1: ignore names 'KX9', no rule of this kcheck (`kcheck rules` lists them)"},
                {"error", "kcheck.toml:2: select names 'KQ', no rule of this kcheck (`kcheck rules` lists them)"}}));
  EXPECT_EQ(codes_of(report, "KL"), (std::vector<std::string>{"KL005", "KL005"})) << "the KL prefix hid nothing";
}

// A policy's [severity] table (issue #31): the caller's is applied; a
// repository's own policy cannot weigh its own findings; a code that names no
// rule is refused before the audit.
TEST(RepositorySettings, OnlyTheCallersPolicyChangesARulesSeverity) {
  std::string lowering(*find_embedded_file("rules/policies/hub.toml"));
  lowering += "\n[severity]\nKL005 = \"note\"\n";
  fs::path repository = repository_with_config("kcheck.toml", "policy = \"ours.toml\"\n");
  std::ofstream(repository / "ours.toml") << lowering;
  const auto severities = [](const nlohmann::json& report) {
    std::vector<std::string> found;
    for (const SeverityAndMessage& finding : severities_and_messages_of(report, "KL005"))
      found.push_back(finding.first);
    return found;
  };
  const nlohmann::json own = audit_json(repository, "", 0);
  EXPECT_EQ(own["policy"]["name"], "custom policy ours.toml (the repository's)");
  EXPECT_EQ(severities(own), (std::vector<std::string>{"warning", "warning"}))
      << "the repository's [severity] is not applied";
  const nlohmann::json callers = audit_json(repository, "--policy " + shell_quoted(repository / "ours.toml"), 0);
  EXPECT_EQ(severities(callers), (std::vector<std::string>{"note", "note"})) << "the caller's is";
  std::ofstream(repository / "typo.toml") << lowering + "KL05 = \"error\"\n";
  const RunResult typo = kcheck("--policy " + shell_quoted(repository / "typo.toml") + " " + shell_quoted(repository));
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("[severity] names no rule: 'KL05'"), std::string::npos) << typo.err;
}

}  // namespace
}  // namespace kcheck
