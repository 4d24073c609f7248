// Runs the kcheck executable as a user would and checks exit status, output
// and stderr.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>

#include <algorithm>

#include "tests/cli/cli_test_support.h"

namespace {

namespace fs = std::filesystem;

using cli_test::fixture;
using cli_test::kcheck;
using cli_test::read_file;
using cli_test::run_command;
using cli_test::RunResult;
using cli_test::scratch_dir;
using cli_test::shell_quoted;

int count_lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

TEST(Cli, VersionPrintsTheToolVersion) {
  RunResult result = kcheck("--version");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.out.find(std::string("kcheck ") + KCHECK_VERSION), std::string::npos) << result.out;
}

TEST(Cli, CleanTreeExitsZero) {
  RunResult result = kcheck(fixture("clean_cpu_variants_from_template"));
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("PASS"), std::string::npos);
  EXPECT_EQ(result.out.find("\033["), std::string::npos) << "no colour when piped";
}

TEST(Cli, ErrorsExitOneAndNameTheOffendingThing) {
  RunResult result = kcheck(fixture("kl006_required_variant_missing"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.out.find("KL006"), std::string::npos);
  EXPECT_NE(result.out.find("torch212-cxx11-cpu-x86_64-linux"), std::string::npos) << "names the missing variant";
}

// A local build cannot hold the variants of other Torch releases: KL006 says
// what each missing one is built with, and --local-build makes it a note
// (the gate passes); an upload (--security) is always judged in full.
TEST(Cli, MissingVariantsSayWhatBuildsThemAndALocalBuildIsNotFailedForThem) {
  const RunResult upload = kcheck(fixture("kl006_required_variant_missing"));
  EXPECT_EQ(upload.exit_code, 1);
  EXPECT_NE(upload.out.find("torch212-cxx11-cpu-x86_64-linux (Torch 2.12)"), std::string::npos) << upload.out;
  EXPECT_NE(upload.out.find("--local-build"), std::string::npos) << upload.out;
  const RunResult local = kcheck("--local-build --show-notes " + fixture("kl006_required_variant_missing"));
  EXPECT_EQ(local.exit_code, 0) << local.out;
  EXPECT_NE(local.out.find("KL006"), std::string::npos) << "still said, as a note: " << local.out;
  EXPECT_NE(local.out.find("a local build (--local-build) is not judged on them"), std::string::npos) << local.out;
  EXPECT_EQ(kcheck("--security --local-build --format json " + fixture("kl006_required_variant_missing")).exit_code, 1);
}

TEST(Cli, CheckIsTheAuditAndAMistypedCommandGetsADidYouMean) {
  const RunResult plain = kcheck("--format json " + fixture("kl006_required_variant_missing"));
  const RunResult check = kcheck("check --format json " + fixture("kl006_required_variant_missing"));
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_EQ(check.out, plain.out);
  EXPECT_EQ(kcheck("--strict check " + fixture("clean_cpu_variants_from_template")).exit_code, 0);
  const RunResult mistyped = kcheck("chek " + fixture("clean_cpu_variants_from_template"));
  EXPECT_EQ(mistyped.exit_code, 2);
  EXPECT_EQ(mistyped.err, "kcheck: unknown command 'chek'; did you mean 'check'?\n");
  EXPECT_EQ(kcheck("rulse").err, "kcheck: unknown command 'rulse'; did you mean 'rules'?\n");
  EXPECT_NE(kcheck("no-such-kernel").err.find("does not exist"), std::string::npos) << "far from every command";
}

TEST(Cli, GithubAndConciseFormatsGiveALinePerFinding) {
  const RunResult github = kcheck("check --format github " + fixture("kp002_numpy_import"));
  EXPECT_EQ(github.exit_code, 1);
  EXPECT_NE(github.out.find("::error file="), std::string::npos) << github.out;
  EXPECT_NE(github.out.find("/helpers.py,line=3,title=KP002::`import numpy`"), std::string::npos) << github.out;
  const RunResult concise = kcheck("check --format concise " + fixture("kp002_numpy_import"));
  EXPECT_NE(concise.out.find("/helpers.py:3: KP002 `import numpy`"), std::string::npos) << concise.out;
  EXPECT_EQ(kcheck("--security --format github " + fixture("kp002_numpy_import")).exit_code, 2) << "structured only";
}

TEST(Cli, MissingPathExitsTwoWithOneLine) {
  RunResult result = kcheck("/no/such/kernel");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(count_lines(result.err), 1) << result.err;
  EXPECT_NE(result.err.find("/no/such/kernel"), std::string::npos);
}

TEST(Cli, BadArgumentsExitTwo) {
  EXPECT_EQ(kcheck("--format yaml " + fixture("clean_cpu_variants_from_template")).exit_code, 2);
  EXPECT_EQ(kcheck("--no-such-flag").exit_code, 2);
  EXPECT_EQ(kcheck("--select ZZ999 " + fixture("clean_cpu_variants_from_template")).exit_code, 2);
}

TEST(Cli, InvalidPolicyExitsTwoNamingTheKey) {
  fs::path policy = scratch_dir() / "bad-policy.toml";
  std::ofstream(policy) << "[policy]\nname = \"bad\"\n[native]\ncxx-runtime = 3\n";
  RunResult result = kcheck("--policy '" + policy.string() + "' " + fixture("clean_cpu_variants_from_template"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("native.cxx-runtime"), std::string::npos) << result.err;
  EXPECT_EQ(kcheck("--policy nonexistent " + fixture("clean_cpu_variants_from_template")).exit_code, 2);
}

TEST(Cli, SelectAndIgnoreFilterByCodeAndPrefix) {
  const std::string tree = fixture("kl005_files_that_must_not_ship");  // two KL005 warnings
  RunResult all = kcheck(tree);
  EXPECT_EQ(all.exit_code, 0) << "warnings do not fail the gate";
  EXPECT_NE(all.out.find("KL005"), std::string::npos);
  RunResult ignored = kcheck("--ignore KL005 " + tree);
  EXPECT_EQ(ignored.out.find("KL005"), std::string::npos);
  RunResult selected = kcheck("--select KM " + tree);
  EXPECT_EQ(selected.out.find("KL005"), std::string::npos);
  RunResult prefix = kcheck("--select KL00 " + tree);
  EXPECT_NE(prefix.out.find("KL005"), std::string::npos);
}

TEST(Cli, StrictMakesWarningsFail) {
  EXPECT_EQ(kcheck("--strict " + fixture("kl005_files_that_must_not_ship")).exit_code, 1);
  EXPECT_EQ(kcheck("--strict " + fixture("clean_cpu_variants_from_template")).exit_code, 0);
}

TEST(Cli, ExplainPrintsTheRuleStory) {
  RunResult result = kcheck("explain KL006");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.out.find("KL006 (error)"), std::string::npos);
  EXPECT_NE(result.out.find("Fix:"), std::string::npos);
  RunResult unknown = kcheck("explain KZ999");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("KZ999"), std::string::npos);
}

TEST(Cli, JsonOutputIsValidAgainstTheDocumentedSchema) {
  for (const char* tree :
       {"clean_cpu_variants_from_template", "kl007_links_and_special_files", "kl003_no_top_level_init"}) {
    fs::path report = scratch_dir() / (std::string(tree) + ".json");
    RunResult result = kcheck("--format json --output '" + report.string() + "' " + fixture(tree));
    ASSERT_NE(result.exit_code, 2) << result.err;
    EXPECT_TRUE(result.out.empty()) << "--output writes the file, not stdout";
    RunResult validation = run_command(std::string("'") + KCHECK_VENV_PYTHON + "' '" + KCHECK_SOURCE_DIR +
                                       "/tests/cli/validate_json_schema.py' '" + KCHECK_SOURCE_DIR +
                                       "/docs/report-schema.json' '" + report.string() + "'");
    EXPECT_EQ(validation.exit_code, 0) << tree << ": " << validation.err;
  }
}

TEST(Cli, JsonSchemaValidatorRejectsABrokenReport) {
  fs::path broken = scratch_dir() / "broken.json";
  std::ofstream(broken) << R"({"schema_version": "1.0", "findings": [{"code": "bad"}]})";
  RunResult validation = run_command(std::string("'") + KCHECK_VENV_PYTHON + "' '" + KCHECK_SOURCE_DIR +
                                     "/tests/cli/validate_json_schema.py' '" + KCHECK_SOURCE_DIR +
                                     "/docs/report-schema.json' '" + broken.string() + "'");
  EXPECT_EQ(validation.exit_code, 1);
}

TEST(Cli, AuditsASingleVariantAndASingleModule) {
  std::string variant = fixture("clean_cpu_variants_from_template/build/torch212-cxx11-cpu-x86_64-linux");
  RunResult one_variant = kcheck(variant);
  EXPECT_EQ(one_variant.exit_code, 0) << one_variant.out;
  EXPECT_NE(one_variant.out.find("variant"), std::string::npos);
  std::string module =
      fixture("clean_cpu_variants_from_template/build/torch212-cxx11-cpu-x86_64-linux/_relu_cpu_0a1b2c3.abi3.so");
  RunResult one_module = kcheck(module);
  EXPECT_EQ(one_module.exit_code, 0) << one_module.out;
  EXPECT_NE(one_module.out.find("module"), std::string::npos);
}

// Text output as ruff and clang-tidy users expect (issue #15): notes hidden
// with a count, a severity threshold, --quiet, paths clickable from where
// kcheck ran, a fix or `kcheck explain` under every finding.
TEST(Cli, TextHidesNotesWithACountAndShowsThemOnRequest) {
  const RunResult plain = kcheck(fixture("ke012_lazy_binding_note"));
  EXPECT_EQ(plain.out.find("KE012"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("1 note; 1 note hidden (--show-notes): FAIL"), std::string::npos) << plain.out;
  const RunResult notes = kcheck("--show-notes " + fixture("ke012_lazy_binding_note"));
  EXPECT_NE(notes.out.find("note    KE012"), std::string::npos) << notes.out;
  EXPECT_EQ(notes.out.find("hidden"), std::string::npos) << notes.out;
  EXPECT_EQ(notes.exit_code, plain.exit_code) << "what is shown never changes the gate";

  const RunResult errors_only = kcheck("--min-severity error --strict " + fixture("kl005_files_that_must_not_ship"));
  EXPECT_EQ(errors_only.exit_code, 1) << "the hidden warnings still fail under --strict";
  EXPECT_EQ(errors_only.out.find("KL005"), std::string::npos) << errors_only.out;
  EXPECT_NE(errors_only.out.find("2 warnings hidden"), std::string::npos) << errors_only.out;
  const RunResult concise =
      kcheck("--format concise --min-severity error " + fixture("kl005_files_that_must_not_ship"));
  EXPECT_EQ(concise.out, "") << "the line formats honour the threshold too";
  const RunResult bad = kcheck("--min-severity loud " + fixture("kl005_files_that_must_not_ship"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "kcheck: unknown --min-severity 'loud' (note, warning, error)\n");
}

TEST(Cli, QuietPrintsTheFindingsOnly) {
  const RunResult quiet = kcheck("-q " + fixture("kl005_files_that_must_not_ship"));
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.out.find("kcheck " KCHECK_VERSION), std::string::npos) << quiet.out;
  EXPECT_EQ(quiet.out.find("PASS"), std::string::npos) << quiet.out;
  EXPECT_EQ(std::count(quiet.out.begin(), quiet.out.end(), '\n'), 1 + 2 * 3)
      << "a title, two findings of three lines:\n"
      << quiet.out;
  EXPECT_TRUE(quiet.out.starts_with("torch212-cxx11-cpu-x86_64-linux\n")) << quiet.out;
  EXPECT_EQ(kcheck("--quiet " + fixture("clean_cpu_variants_from_template")).out, "");
}

TEST(Cli, TextPathsAreRelativeToWhereKcheckRanAndEveryFindingEndsWithAFix) {
  const RunResult run = run_command(std::string("cd '") + KCHECK_TREE_FIXTURES_DIR + "' && NO_COLOR= '" +
                                    KCHECK_EXECUTABLE + "' kl005_files_that_must_not_ship/build");
  EXPECT_NE(run.out.find(
                "  warning KL005  kl005_files_that_must_not_ship/build/torch212-cxx11-cpu-x86_64-linux/relu.o\n"
                "          build intermediate 'relu.o' must not ship in a variant\n"
                "          fix: delete them before uploading (kernel-builder and `kcheck build` never write them)\n"),
            std::string::npos)
      << run.out;
  const RunResult missing = kcheck(fixture("kl006_required_variant_missing"));
  EXPECT_NE(missing.out.find("\n          more: kcheck explain KL006\n"), std::string::npos)
      << "no one-line fix: the explanation\n"
      << missing.out;
}

// Two variants that repeat the same findings: shown once, with both named,
// in text, Markdown and HTML; the JSON keeps one finding per variant.
TEST(Cli, FindingsRepeatedByVariantsAreShownOnceWithTheVariants) {
  const fs::path repository = scratch_dir() / "two-variants";
  fs::remove_all(repository);
  fs::copy(fs::path(KCHECK_TREE_FIXTURES_DIR) / "kl005_files_that_must_not_ship", repository,
           fs::copy_options::recursive);
  fs::remove_all(repository / "build" / "torch213-cxx11-cpu-x86_64-linux");  // the fixture's clean second variant
  fs::copy(repository / "build" / "torch212-cxx11-cpu-x86_64-linux",
           repository / "build" / "torch213-cxx11-cpu-x86_64-linux", fs::copy_options::recursive);
  const std::string path = "'" + repository.string() + "'";
  const std::string title = "2 variants: torch212-cxx11-cpu-x86_64-linux, torch213-cxx11-cpu-x86_64-linux";
  const RunResult text = kcheck(path);
  EXPECT_NE(text.out.find("\n" + title + "\n  warning KL005  "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("/build/*/relu.o\n"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("torch213-cxx11-cpu-x86_64-linux/relu.o"), std::string::npos) << text.out;
  const std::string kl005 = "KL005  ";
  auto occurrences = [](const std::string& text, const std::string& part) {
    int count = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
    return count;
  };
  EXPECT_EQ(occurrences(text.out, kl005), 2) << text.out;
  EXPECT_NE(text.out.find("4 warnings"), std::string::npos) << "the counts stay per variant\n" << text.out;

  const RunResult markdown = kcheck("--format markdown " + path);
  EXPECT_NE(
      markdown.out.find("#### 2 variants: torch212-cxx11-cpu-x86\\_64-linux, torch213-cxx11-cpu-x86\\_64-linux\n"),
      std::string::npos)
      << markdown.out;
  EXPECT_EQ(occurrences(markdown.out, "**KL005**"), 2) << markdown.out;
  const RunResult html = kcheck("--format html " + path);
  EXPECT_NE(html.out.find(title), std::string::npos);
  EXPECT_EQ(occurrences(html.out, "<p class=\"muted\">No findings of its own.</p>"), 2) << html.out;
  EXPECT_EQ(occurrences(html.out, "Findings it shares with other variants: <a href=\"#variant-2-variants--torch212"), 2)
      << html.out;
  const RunResult json = kcheck("--format json " + path);
  EXPECT_EQ(occurrences(json.out, "\"code\": \"KL005\""), 4) << json.out;
}

}  // namespace

TEST(Cli, OutputFileHoldsTheReportAndStdoutStaysEmpty) {
  const fs::path report = scratch_dir() / "report.json";
  fs::remove(report);
  RunResult result = kcheck("--format json -o '" + report.string() + "' " + fixture("kl005_files_that_must_not_ship"));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "");
  const std::string written = read_file(report);
  EXPECT_NE(written.find("\"KL005\""), std::string::npos) << written.substr(0, 400);
  EXPECT_EQ(written.front(), '{');
}

TEST(Cli, AnOutputFileThatCannotBeWrittenExitsTwoNamingIt) {
  RunResult result = kcheck("-o /no/such/dir/report.txt " + fixture("clean_cpu_variants_from_template"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "kcheck: cannot write /no/such/dir/report.txt\n");
}

TEST(Cli, EachRefusedArgumentIsNamedOnOneLine) {
  const std::string tree = " " + fixture("clean_cpu_variants_from_template");
  const struct {
    std::string arguments;
    std::string message;
  } cases[] = {
      {"--format yaml" + tree,
       "kcheck: unknown --format 'yaml' (one of text, json, sarif, junit, markdown, html, github, concise)\n"},
      {"--stirct" + tree, "kcheck: unknown option '--stirct'; did you mean '--strict'?\n"},
      {"check --fromat json" + tree, "kcheck: unknown option '--fromat'; did you mean '--format'?\n"},
      {"run --no-sandbx" + tree, "kcheck: unknown option '--no-sandbx'; did you mean '--no-sandbox'?\n"},
      {"--zzzzzzz" + tree, "kcheck: unknown option '--zzzzzzz' (`kcheck --help` lists them)\n"},
      {"--min-severity fatal" + tree, "kcheck: unknown --min-severity 'fatal' (note, warning, error)\n"},
      {"--select ZZ999" + tree, "kcheck: no rule code matches 'ZZ999' (see `kcheck rules`)\n"},
      {"--ignore KE,QQ" + tree, "kcheck: no rule code matches 'QQ' (see `kcheck rules`)\n"},
      {"explain ZZ999", "kcheck: unknown rule code 'ZZ999' (see `kcheck rules`)\n"},
  };
  for (const auto& c : cases) {
    RunResult result = kcheck(c.arguments);
    EXPECT_EQ(result.exit_code, 2) << c.arguments;
    EXPECT_EQ(result.err, c.message) << c.arguments;
    EXPECT_EQ(result.out, "") << c.arguments << ": nothing is audited when an argument is refused";
  }
}

// Issue #29: a command's help lists its own options and then the ones every
// command takes (they are parsed once, on the top-level app).
TEST(Cli, EachCommandsHelpListsItsOptionsAndTheSharedOnes) {
  for (const std::string command : {"check", "run", "build", "scan"}) {
    const RunResult help = kcheck(command + " --help");
    EXPECT_EQ(help.exit_code, 0) << command;
    EXPECT_NE(help.out.find("Usage: "), std::string::npos) << command << help.out;
    EXPECT_NE(help.out.find("Options every command takes:"), std::string::npos) << command << help.out;
    EXPECT_NE(help.out.find("--format TEXT"), std::string::npos) << command << help.out;
    EXPECT_NE(help.out.find("--strict"), std::string::npos) << command << help.out;
  }
  EXPECT_NE(kcheck("run --help").out.find("--no-sandbox"), std::string::npos);
  EXPECT_EQ(kcheck("--help").out.find("Options every command takes:"), std::string::npos)
      << "the top-level help lists them once, as its own";
}

// Issue #29: `kcheck check` on a kernel source repository (build.toml, no
// build/) runs what needs no build: KC on build.toml, KP and KO on the
// Python package as each backend's variant will hold it, KO001 on the C++
// sources' registrations. A clean one passes, saying the variants are not
// audited yet; planted mistakes give exactly their codes.
TEST(Cli, ASourceRepositoryGetsTheChecksThatNeedNoBuild) {
  const fs::path kernel = scratch_dir() / "source-relu";
  fs::remove_all(kernel);
  fs::copy(fs::path(KCHECK_SOURCE_DIR) / "reference/kernels/relu", kernel, fs::copy_options::recursive);
  const RunResult clean = kcheck("check " + shell_quoted(kernel));
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_NE(clean.out.find("source checks (no variant audited: `kcheck build`, then `kcheck check` audits them), "
                           "0 errors, 0 warnings, 0 notes: PASS"),
            std::string::npos)
      << clean.out;
  EXPECT_NE(clean.out.find("torch-ext/relu (cuda)  ok"), std::string::npos) << clean.out;

  std::ofstream(kernel / "torch-ext" / "torch_binding.cpp", std::ios::app) << "\nTORCH_LIBRARY(relu, extra) {}\n";
  std::ofstream(kernel / "torch-ext" / "relu" / "__init__.py", std::ios::app) << "\nimport numpy\n";
  std::string config = read_file(kernel / "build.toml");
  config.replace(config.find("depends"), 7, "depnds");
  std::ofstream(kernel / "build.toml", std::ios::trunc) << config;
  const RunResult planted = kcheck("check --format json " + shell_quoted(kernel));
  EXPECT_EQ(planted.exit_code, 1) << planted.err;
  const nlohmann::json report = nlohmann::json::parse(planted.out);
  std::multiset<std::string> codes;
  for (const nlohmann::json& finding : report["findings"]) codes.insert(finding["code"].get<std::string>());
  EXPECT_EQ(codes.count("KO001"), 1u) << planted.out;
  EXPECT_EQ(codes.count("KP002"), 3u) << "one per backend's variant (cpu, cuda, rocm): " << planted.out;
  EXPECT_GE(codes.count("KC002"), 1u) << planted.out;
  EXPECT_EQ(codes.size(), codes.count("KO001") + codes.count("KP002") + codes.count("KC002")) << planted.out;
  for (const nlohmann::json& finding : report["findings"])
    if (finding["code"] == "KO001") {
      EXPECT_EQ(finding["file"], "torch-ext/torch_binding.cpp");
      EXPECT_GT(finding["location"]["line"].get<int>(), 1);
    }
  EXPECT_EQ(report["scope"], "source");
  // A package reached through a link out of the repository is not read: the
  // audit never quotes files beside the checkout.
  const fs::path outside = scratch_dir() / "outside-package";
  fs::remove_all(outside);
  fs::rename(kernel / "torch-ext" / "relu", outside);
  fs::create_symlink(outside, kernel / "torch-ext" / "relu");
  const nlohmann::json linked = nlohmann::json::parse(kcheck("check --format json " + shell_quoted(kernel)).out);
  for (const nlohmann::json& finding : linked["findings"])
    EXPECT_FALSE(finding["code"].get<std::string>().starts_with("KP")) << finding.dump();
  for (const nlohmann::json& code : report["rules_run"]) {
    const std::string rule = code;
    EXPECT_TRUE(rule.starts_with("KC") || rule.starts_with("KP") || rule.starts_with("KO")) << rule;
  }
}

TEST(Cli, MinSeverityErrorHidesWarningsButTheExitStatusStillCountsThem) {
  const std::string tree = fixture("kl005_files_that_must_not_ship");  // two KL005 warnings
  RunResult hidden = kcheck("--format concise --min-severity error " + tree);
  EXPECT_EQ(hidden.exit_code, 0) << hidden.err;
  EXPECT_EQ(hidden.out.find("KL005"), std::string::npos) << hidden.out;
  RunResult strict = kcheck("--format concise --min-severity error --strict " + tree);
  EXPECT_EQ(strict.exit_code, 1) << "--strict fails on the warnings whether or not they are shown";
}
