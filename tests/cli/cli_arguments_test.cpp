// The kcheck executable's argument handling beyond cli_test.cpp: the rule
// listing against the registry, arguments that conflict or have no place,
// refusals of `config`, `build`, `run`, `bench`, `report` and `scan` before
// any work, and options that mean the same before or after the command.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/audit/audit.h"
#include "checker/core/rule_registry.h"
#include "checker/core/severity.h"
#include "tests/cli/cli_test_support.h"

namespace {

namespace fs = std::filesystem;

using cli_test::fixture;
using cli_test::kcheck;
using cli_test::read_file;
using cli_test::RunResult;
using cli_test::scratch_dir;
using cli_test::shell_quoted;

std::string quoted(const fs::path& path) { return shell_quoted(path); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

// --- kcheck rules -------------------------------------------------------------

// One line per registered rule, in the registry's order, nothing else: a rule
// left out of the listing (or a stray line) fails.
TEST(CliRules, ListsExactlyTheRegisteredRulesOneLineEach) {
  const kcheck::RuleRegistry registry = kcheck::make_rule_registry();
  const RunResult result = kcheck("rules");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::vector<std::string> lines = lines_of(result.out);
  ASSERT_EQ(lines.size(), registry.rules().size()) << result.out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const kcheck::RuleInfo& info = registry.rules()[i]->info();
    const std::string severity(kcheck::to_string(info.default_severity));
    EXPECT_EQ(lines[i], info.code + "  " + severity + std::string(8 - severity.size(), ' ') + info.title);
  }
}

TEST(CliRules, TheMarkdownCatalogueHasASectionForEveryRule) {
  const kcheck::RuleRegistry registry = kcheck::make_rule_registry();
  const RunResult result = kcheck("rules --format markdown");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const kcheck::Rule* rule : registry.rules()) {
    const kcheck::RuleInfo& info = rule->info();
    EXPECT_NE(result.out.find("\n### " + info.code + ": " + info.title + "\n"), std::string::npos) << info.code;
  }
}

TEST(CliRules, AnUnknownFormatIsRefusedAndNothingIsListed) {
  const RunResult result = kcheck("rules --format yaml");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err,
            "kcheck: unknown --format 'yaml' (one of text, json, sarif, junit, markdown, html, github, concise)\n");
  EXPECT_EQ(result.out, "");
}

TEST(CliRules, TheJsonCatalogueListsEveryRuleWithItsDescription) {
  const kcheck::RuleRegistry registry = kcheck::make_rule_registry();
  const RunResult result = kcheck("rules --format json");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const nlohmann::json listed = nlohmann::json::parse(result.out);
  ASSERT_TRUE(listed.is_array());
  ASSERT_EQ(listed.size(), registry.rules().size());
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const kcheck::RuleInfo& info = registry.rules()[i]->info();
    EXPECT_EQ(listed[i]["code"], info.code);
    EXPECT_EQ(listed[i]["title"], info.title);
    EXPECT_EQ(listed[i]["default_severity"], std::string(kcheck::to_string(info.default_severity)));
    EXPECT_EQ(listed[i]["security_severity"], info.security_severity);
    EXPECT_EQ(listed[i]["explanation"], info.explanation);
  }
}

// A report format that has no meaning for a rule list is refused, never
// answered with the text listing.
TEST(CliRules, AReportOnlyFormatIsRefusedNamingTheOnesItHas) {
  for (const std::string format : {"sarif", "junit", "html", "github", "concise"}) {
    const RunResult result = kcheck("rules --format " + format);
    EXPECT_EQ(result.exit_code, 2) << format;
    EXPECT_EQ(result.err,
              "kcheck: kcheck rules lists the rules as text, json or markdown, not --format " + format + "\n");
    EXPECT_EQ(result.out, "") << format;
  }
}

// --- arguments that have no place ------------------------------------------------

// A subcommand takes its own positionals; another one has nowhere to go.
TEST(CliArguments, AStrayArgumentAfterACommandIsRefusedNamingIt) {
  for (const std::string& arguments : {std::string("explain KL006 stray-extra"), std::string("rules stray-extra")}) {
    const RunResult result = kcheck(arguments);
    EXPECT_EQ(result.exit_code, 2) << arguments;
    EXPECT_NE(result.err.find("stray-extra"), std::string::npos) << arguments << ": " << result.err;
    EXPECT_EQ(result.out, "") << arguments;
  }
}

TEST(CliArguments, ExplainWithoutACodeIsAUsageError) {
  const RunResult result = kcheck("explain");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("code"), std::string::npos) << result.err;
  EXPECT_EQ(result.out, "");
}

// The options belong to kcheck, not to a position: before or after the
// command name, before or after the path, the audit is the same.
TEST(CliArguments, ReportOptionsMeanTheSameBeforeOrAfterTheCommand) {
  const std::string tree = fixture("kl005_files_that_must_not_ship");
  const RunResult after = kcheck("check " + tree + " --format json --ignore KL005");
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.out.find("\"KL005\""), std::string::npos) << "--ignore applied";
  EXPECT_EQ(after.out.front(), '{') << "--format applied";
  EXPECT_EQ(kcheck("--format json --ignore KL005 check " + tree).out, after.out);
  EXPECT_EQ(kcheck("check --format json " + tree + " --ignore KL005").out, after.out);
}

// --security is the Hub-side profile: only structured output, whatever else is asked.
TEST(CliArguments, SecurityRefusesEveryUnstructuredFormatNamingTheAllowedOnes) {
  const std::string tree = fixture("clean_cpu_variants_from_template");
  for (const char* format : {"text", "markdown", "html", "github", "concise"}) {
    const RunResult result = kcheck(std::string("--security --format ") + format + " " + tree);
    EXPECT_EQ(result.exit_code, 2) << format;
    EXPECT_EQ(result.err, "kcheck: --security writes structured output only: --format json, sarif or junit\n")
        << format;
    EXPECT_EQ(result.out, "") << format;
  }
  for (const char* format : {"json", "sarif", "junit"})
    EXPECT_EQ(kcheck(std::string("--security --format ") + format + " " + tree).exit_code, 0) << format;
}

// --- commands refused before any work -----------------------------------------------

TEST(CliArguments, ConfigAndBuildWithoutBuildTomlNameTheDirectory) {
  const fs::path empty = scratch_dir() / "no-build-toml";
  fs::remove_all(empty);
  fs::create_directories(empty);
  const RunResult config = kcheck("config " + quoted(empty));
  EXPECT_EQ(config.exit_code, 2);
  EXPECT_EQ(config.err, "kcheck: no build.toml in " + empty.string() + "\n");
  const RunResult build = kcheck("build " + quoted(empty) + " --output-dir " + quoted(empty / "out"));
  EXPECT_EQ(build.exit_code, 2);
  EXPECT_EQ(build.err, "kcheck: no build.toml in " + empty.string() + "\n");
  EXPECT_FALSE(fs::exists(empty / "out"));
}

// A build.toml with errors: its KC findings are the report, nothing is built.
TEST(CliArguments, BuildOfABuildTomlWithErrorsReportsThemAndBuildsNothing) {
  const fs::path kernel = scratch_dir() / "broken-kernel";
  fs::remove_all(kernel);
  fs::create_directories(kernel);
  std::ofstream(kernel / "build.toml") << "[general]\nname = \"toy\"\nversion = \"one\"\n";
  const RunResult result =
      kcheck("build " + quoted(kernel) + " --format concise --output-dir " + quoted(kernel / "out"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("kcheck build: build.toml has errors; nothing was built"), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("KC00"), std::string::npos) << result.out;
  EXPECT_FALSE(fs::exists(kernel / "out"));
}

// A valid build.toml whose listed sources (KC003) or Python package (KC004)
// are missing: stopped with those findings before CMake sees it (issue #30),
// compiled or noarch alike, and no empty variant directory is left behind.
TEST(CliArguments, BuildOfAKernelWithMissingListedFilesStopsBeforeCompiling) {
  const fs::path kernel = scratch_dir() / "missing-files-kernel";
  fs::remove_all(kernel);
  fs::create_directories(kernel);
  const std::string general =
      "[general]\nname = \"toy\"\nversion = 1\nedition = 5\nlicense = \"apache-2.0\"\nbackends = [\"cpu\"]\n\n";
  std::ofstream(kernel / "build.toml") << general
                                       << "[torch]\nsrc = [\"torch-ext/torch_binding.cpp\"]\n\n"
                                          "[kernel.toy_cpu]\nbackend = \"cpu\"\ndepends = [\"torch\"]\n"
                                          "src = [\"toy_cpu/toy.cpp\"]\n";
  auto build = [&] {
    return kcheck("build " + quoted(kernel) + " --format concise --backends cpu --output-dir " +
                  quoted(kernel / "out") + " --scratch-dir " + quoted(kernel / "scratch"));
  };
  RunResult result = build();
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.err.find("nothing was built"), std::string::npos) << result.err;
  for (const char* code : {"KC003", "KC004"}) EXPECT_NE(result.out.find(code), std::string::npos) << result.out;
  EXPECT_FALSE(fs::exists(kernel / "out"));
  EXPECT_FALSE(fs::exists(kernel / "scratch")) << "CMake never ran";

  std::ofstream(kernel / "build.toml") << general << "[torch-noarch]\n";
  result = build();
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_NE(result.out.find("KC004"), std::string::npos) << result.out;
  EXPECT_FALSE(fs::exists(kernel / "out")) << "no empty variant directory";
}

TEST(CliArguments, BuildOfABackendThisMachineCannotBuildIsRefusedWithTheReason) {
  const fs::path out = scratch_dir() / "metal-out";
  fs::remove_all(out);
  const RunResult result = kcheck("build " + quoted(fs::path(KCHECK_SOURCE_DIR) / "tests/fixtures/kernels/metal-only") +
                                  " --backends metal --unique-id 0f1e2d3 --output-dir " + quoted(out) +
                                  " --scratch-dir " + quoted(scratch_dir() / "metal-scratch"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(result.err.starts_with("kcheck: cannot build on this machine: metal: needs macOS with Xcode"))
      << result.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(CliArguments, BuildOfABackendOutsideBuildTomlIsRefused) {
  const RunResult result = kcheck("build " + quoted(fs::path(KCHECK_SOURCE_DIR) / "tests/fixtures/kernels/metal-only") +
                                  " --backends cuda --output-dir " + quoted(scratch_dir() / "out"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "kcheck: backend 'cuda' is not in build.toml's general.backends (metal)\n");
}

// A build is pinned to the repository's policy: one it cannot use is a
// refusal naming the config's line, never a build against another policy.
TEST(CliArguments, BuildWithARepositoryPolicyThatCannotBeUsedIsRefused) {
  const fs::path kernel = scratch_dir() / "broken-policy";
  fs::remove_all(kernel);
  fs::copy(fs::path(KCHECK_SOURCE_DIR) / "tests/fixtures/kernels/metal-only", kernel, fs::copy_options::recursive);
  std::ofstream(kernel / "kcheck.toml") << "policy = \"missing.toml\"\n";
  const RunResult result = kcheck("build " + quoted(kernel) + " --output-dir " + quoted(scratch_dir() / "out2"));
  EXPECT_EQ(result.exit_code, 2) << result.out;
  EXPECT_EQ(result.err,
            "kcheck: kcheck.toml:1: policy 'missing.toml': neither an embedded policy nor a file of the repository\n");
}

// `run` and `bench` check their numbers before loading any kernel code.
TEST(CliArguments, RunAndBenchRefuseBadSettingsBeforeLoadingAnything) {
  const std::string tree = " " + fixture("clean_cpu_variants_from_template");
  const struct {
    std::string arguments;
    std::string message;
  } cases[] = {
      {"bench --samples 0" + tree, "kcheck: --samples must be at least 1\n"},
      {"bench --regression-threshold -5" + tree, "kcheck: --regression-threshold must be >= 0\n"},
      {"bench --compile-timeout 0" + tree, "kcheck: --compile-timeout must be above 0\n"},
      {"run --format yaml" + tree,
       "kcheck: unknown --format 'yaml' (one of text, json, sarif, junit, markdown, html, github, concise)\n"},
      {"run --select QQ" + tree, "kcheck: no rule code matches 'QQ' (see `kcheck rules`)\n"},
  };
  for (const auto& c : cases) {
    const RunResult result = kcheck(c.arguments);
    EXPECT_EQ(result.exit_code, 2) << c.arguments;
    EXPECT_EQ(result.err, c.message) << c.arguments;
    EXPECT_EQ(result.out, "") << c.arguments;
  }
  const RunResult compile = kcheck("bench --compile fastest" + tree);
  EXPECT_EQ(compile.exit_code, 2);
  EXPECT_TRUE(compile.err.starts_with("kcheck: --compile: 'fastest' is no torch.compile mode")) << compile.err;
  const RunResult mixed = kcheck("bench --compile none,default" + tree);
  EXPECT_EQ(mixed.exit_code, 2) << "none stands alone";
  EXPECT_NE(mixed.err.find("'none'"), std::string::npos) << mixed.err;
}

TEST(CliArguments, ReportOfAMissingOrBrokenFileNamesIt) {
  const RunResult missing = kcheck("report /no/such/saved-report.json");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/no/such/saved-report.json"), std::string::npos) << missing.err;
  EXPECT_EQ(missing.out, "");
  const fs::path broken = scratch_dir() / "broken.json";
  std::ofstream(broken) << "{ not json";
  const RunResult garbled = kcheck("report " + quoted(broken));
  EXPECT_EQ(garbled.exit_code, 2);
  EXPECT_NE(garbled.err.find(broken.string()), std::string::npos) << garbled.err;
  EXPECT_EQ(garbled.out, "");
}

// A scan makes one report per repository: a one-file format needs a directory.
TEST(CliArguments, ScanInAPerRepositoryFormatNeedsAReportDirectory) {
  const fs::path root = scratch_dir() / "no-repositories";
  fs::create_directories(root);
  const RunResult result = kcheck("scan --no-cache --format sarif " + quoted(root));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.err, "kcheck: --format sarif makes one file per repository: add --report-dir DIR\n");
}

// --output with the text format: the report goes to the file, uncoloured.
TEST(CliArguments, TextOutputToAFileIsTheSameReportAsOnStdout) {
  const fs::path report = scratch_dir() / "report.txt";
  fs::remove(report);
  const std::string tree = fixture("kl005_files_that_must_not_ship");
  const RunResult written = kcheck("-o " + quoted(report) + " " + tree);
  EXPECT_EQ(written.exit_code, 0) << written.err;
  EXPECT_EQ(written.out, "");
  const std::string text = read_file(report);
  EXPECT_NE(text.find("KL005"), std::string::npos) << text;
  EXPECT_EQ(text.find("\033["), std::string::npos) << "no colour in a file";
  EXPECT_EQ(text, kcheck(tree).out);
}

}  // namespace

namespace {

// A "Python" whose Torch probe (kcheck's own script) answers with a Torch
// kcheck was not built against, so its worker would have to be built now.
fs::path python_with_unbuilt_torch(const fs::path& dir) {
  fs::path python = dir / "python";
  std::ofstream(python) << "#!/bin/sh\necho '{\"version\": \"2.12.0+cpu\", \"cxx11_abi\": true, \"cuda\": \"\", "
                           "\"torch_dir\": \"/nonexistent/torch\", \"libpython\": \"\", \"cuda_include\": []}'\n";
  fs::permissions(python, fs::perms::owner_all);
  return python;
}

TEST(CliRun, NoWorkerAndNoCompilerIsExitTwoWithTheReason) {
  const fs::path dir = scratch_dir() / "no-compiler";
  fs::remove_all(dir);
  fs::create_directories(dir / "cache");
  const fs::path python = python_with_unbuilt_torch(dir);
  const RunResult run =
      cli_test::run_command("XDG_CACHE_HOME='" + (dir / "cache").string() +
                            "' CXX=/nonexistent/c++ NO_COLOR= '" KCHECK_EXECUTABLE "' run --python '" +
                            python.string() + "' " + fixture("clean_cpu_variants_from_template"));
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("kcheck_worker for Torch 2.12.0+cpu is not built and there is no C++ compiler to build it"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.out.find("PASS"), std::string::npos) << run.out;
}

TEST(CliRun, AFailedWorkerBuildIsAnnouncedAndExitTwoWithTheCompilersWords) {
  const fs::path dir = scratch_dir() / "failed-build";
  fs::remove_all(dir);
  fs::create_directories(dir / "cache");
  const fs::path python = python_with_unbuilt_torch(dir);
  const RunResult run = cli_test::run_command("XDG_CACHE_HOME='" + (dir / "cache").string() +
                                              "' CXX=/bin/false NO_COLOR= '" KCHECK_EXECUTABLE "' run --python '" +
                                              python.string() + "' " + fixture("clean_cpu_variants_from_template"));
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("kcheck: building kcheck_worker for Torch 2.12.0+cpu"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("building kcheck_worker for Torch 2.12.0+cpu with /bin/false failed"), std::string::npos)
      << run.err;
  EXPECT_TRUE(fs::is_empty(dir / "cache" / "kcheck" / "workers")) << "no partial worker is cached";
}

}  // namespace
