// JUnit XML output: a suite per variant, a case per rule family, failures
// carrying the findings; parsed with a real XML parser (python xml.etree).
#include "checker/report/junit_format.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/report/report_test_support.h"

namespace kcheck {
namespace {

using namespace kcheck::testing;

// The parsed structure of a JUnit file (see tests/report/junit_to_json.py).
nlohmann::json parse_junit(const fs::path& path) {
  RunResult parsed = venv_python("tests/report/junit_to_json.py", shell_quoted(path));
  EXPECT_EQ(parsed.exit_code, 0) << parsed.err;
  if (parsed.exit_code != 0) return nlohmann::json::object();
  return nlohmann::json::parse(parsed.out);
}

const nlohmann::json& suite_named(const nlohmann::json& junit, const std::string& name) {
  for (const auto& suite : junit["suites"])
    if (suite["name"] == name) return suite;
  static const nlohmann::json none;
  ADD_FAILURE() << "no suite " << name;
  return none;
}

const nlohmann::json& case_named(const nlohmann::json& suite, const std::string& name) {
  for (const auto& test_case : suite["cases"])
    if (test_case["name"] == name) return test_case;
  static const nlohmann::json none;
  ADD_FAILURE() << "no case " << name;
  return none;
}

TEST(JunitFormat, SuitePerVariantCasePerFamilyFailuresCarryFindings) {
  nlohmann::json junit = parse_junit(write_scratch("sample.xml", render_junit(sample_report())));
  std::vector<std::string> names;
  for (const auto& suite : junit["suites"]) names.push_back(suite["name"]);
  EXPECT_EQ(names,
            (std::vector<std::string>{"tree", "torch212-cxx11-cpu-x86_64-linux", "torch213-cxx11-cu130-x86_64-linux"}));
  // Every family is a case in each suite: KE, KL, KM, KP ran; KB, KC, KD, KO
  // did not and are skipped, never passes.
  EXPECT_EQ(junit["tests"], 24);
  EXPECT_EQ(junit["failures"], 3);  // tree KL, cpu KP, cu130 KE
  EXPECT_EQ(junit["skipped"], 12);

  const nlohmann::json& cpu = suite_named(junit, "torch212-cxx11-cpu-x86_64-linux");
  EXPECT_EQ(cpu["tests"], 8);
  EXPECT_EQ(cpu["failures"], 1);
  EXPECT_EQ(cpu["skipped"], 4);
  EXPECT_TRUE(case_named(cpu, "KD dynamic harness")["skipped"]);
  EXPECT_FALSE(case_named(cpu, "KE native module")["skipped"]);
  const nlohmann::json& python = case_named(cpu, "KP Python code");
  EXPECT_EQ(python["classname"], "torch212-cxx11-cpu-x86_64-linux");
  ASSERT_TRUE(python["failure"].is_string());
  EXPECT_NE(python["failure"].get<std::string>().find("error KP003 torch212-cxx11-cpu-x86_64-linux/relu/helpers.py:7"),
            std::string::npos)
      << python["failure"];
  // The suppressed KL005 warning does not fail; it is reported as output.
  const nlohmann::json& layout = case_named(cpu, "KL layout");
  EXPECT_TRUE(layout["failure"].is_null());
  EXPECT_NE(layout["system_out"].get<std::string>().find("(suppressed: kept on purpose)"), std::string::npos);
  EXPECT_TRUE(case_named(cpu, "KE native module")["failure"].is_null());
  EXPECT_TRUE(case_named(cpu, "KE native module")["system_out"].is_null()) << "a clean family has no output";

  const nlohmann::json& cuda = suite_named(junit, "torch213-cxx11-cu130-x86_64-linux");
  EXPECT_NE(case_named(cuda, "KE native module")["failure"].get<std::string>().find("[exp@GLIBC_2.29]"),
            std::string::npos);
  // A warning passes unless --strict.
  EXPECT_TRUE(case_named(cuda, "KM metadata.json")["failure"].is_null());
  EXPECT_NE(case_named(suite_named(junit, "tree"), "KL layout")["failure"].get<std::string>().find("KL006"),
            std::string::npos);
}

TEST(JunitFormat, StrictMakesWarningsFailures) {
  Report report = sample_report();
  report.strict = true;
  nlohmann::json junit = parse_junit(write_scratch("strict.xml", render_junit(report)));
  EXPECT_EQ(junit["failures"], 4);
  const nlohmann::json& metadata =
      case_named(suite_named(junit, "torch213-cxx11-cu130-x86_64-linux"), "KM metadata.json");
  EXPECT_EQ(metadata["failure_message"], "1 finding fail the gate");
}

TEST(JunitFormat, MarkupInMessagesIsEscaped) {
  Report report = sample_report();
  for (Finding& finding : report.findings)
    if (finding.code == "KP003") finding.message = "a <b> & \"c\" \x01 ]]>";
  nlohmann::json junit = parse_junit(write_scratch("escaped.xml", render_junit(report)));
  const nlohmann::json& python = case_named(suite_named(junit, "torch212-cxx11-cpu-x86_64-linux"), "KP Python code");
  EXPECT_NE(python["failure"].get<std::string>().find("a <b> & \"c\" ? ]]>"), std::string::npos) << python["failure"];
}

TEST(JunitFormat, LiveRunOnLinksAndSpecialFiles) {
  fs::path path = scratch_dir() / "kl007.xml";
  RunResult run = kcheck("--format junit -o " + shell_quoted(path) + " " + fixture("kl007_links_and_special_files"));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  nlohmann::json junit = parse_junit(path);
  const nlohmann::json& first = suite_named(junit, "torch212-cxx11-cpu-x86_64-linux");
  std::string layout = case_named(first, "KL layout")["failure"].get<std::string>();
  for (const char* file : {"escape.txt", "loop_a", "loop_b"})
    EXPECT_NE(layout.find(std::string("KL007 build/torch212-cxx11-cpu-x86_64-linux/") + file), std::string::npos)
        << layout;
  EXPECT_TRUE(case_named(first, "KM metadata.json")["failure"].is_null());
  const nlohmann::json& second = suite_named(junit, "torch213-cxx11-cpu-x86_64-linux");
  EXPECT_NE(case_named(second, "KM metadata.json")["failure"].get<std::string>().find("KM007"), std::string::npos);
  EXPECT_EQ(second["failures"], 2);
}

TEST(JunitFormat, LiveRunOnACleanTreeHasNoFailures) {
  fs::path path = scratch_dir() / "clean.xml";
  RunResult run = kcheck("--format junit -o " + shell_quoted(path) + " " + fixture("clean_cpu_variants_from_template"));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json junit = parse_junit(path);
  EXPECT_EQ(junit["failures"], 0);
  EXPECT_GE(junit["suites"].size(), 2u);
  for (const auto& suite : junit["suites"]) EXPECT_GE(suite["tests"].get<int>(), 5) << suite["name"];
  // Issue #29: a static audit runs no KD or KB rule: skipped, saying why,
  // never a passed case; the JSON report's rules_run does not list them.
  for (const auto& suite : junit["suites"])
    for (const auto& test_case : suite["cases"]) {
      const std::string name = test_case["name"];
      const bool dynamic = name.starts_with("KD ") || name.starts_with("KB ");
      EXPECT_EQ(test_case["skipped"], dynamic) << suite["name"] << " " << name;
      if (name.starts_with("KD ")) {
        EXPECT_EQ(test_case["skipped_message"],
                  "not run: these rules judge the kernel's code as `kcheck run` or `kcheck bench` runs it");
      }
    }
  const nlohmann::json report =
      nlohmann::json::parse(kcheck("--format json " + fixture("clean_cpu_variants_from_template")).out);
  for (const nlohmann::json& code : report["rules_run"]) {
    const std::string rule = code;
    EXPECT_FALSE(rule.starts_with("KD") || rule.starts_with("KB") || rule == "KO006") << rule;
  }
}

}  // namespace
}  // namespace kcheck
