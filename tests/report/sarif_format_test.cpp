// SARIF 2.1.0 output: rule descriptors from the catalogue, results with exact
// rule ids, levels, relative artifact locations, line regions and symbols,
// validated against the official schema with a real JSON-schema validator.
#include "checker/report/sarif_format.h"

#include <gtest/gtest.h>

#include <set>

#include "checker/audit/audit.h"
#include "checker/report/explain_format.h"
#include "checker/report/render.h"
#include "tests/report/report_test_support.h"

namespace kcheck {
namespace {

using namespace kcheck::testing;

const std::string kSarifSchema = std::string(KCHECK_SOURCE_DIR) + "/tests/report/data/sarif-schema-2.1.0.json";

std::vector<RuleInfo> catalogue() { return rule_catalogue(make_rule_registry()); }

// Validates a SARIF file with tests/cli/validate_json_schema.py (jsonschema).
RunResult validate(const fs::path& sarif) {
  return venv_python("tests/cli/validate_json_schema.py", shell_quoted(kSarifSchema) + " " + shell_quoted(sarif));
}

const nlohmann::json& result_with_rule(const nlohmann::json& sarif, const std::string& code) {
  for (const auto& result : sarif["runs"][0]["results"])
    if (result["ruleId"] == code) return result;
  static const nlohmann::json none;
  ADD_FAILURE() << "no result for " << code;
  return none;
}

TEST(SarifFormat, OneDescriptorPerCodeWithTitleHelpAndDefaultLevel) {
  std::vector<RuleInfo> rules = catalogue();
  nlohmann::json sarif = render_sarif(sample_report(), rules);
  const nlohmann::json& descriptors = sarif["runs"][0]["tool"]["driver"]["rules"];
  ASSERT_EQ(descriptors.size(), 5u);
  std::vector<std::string> ids;
  for (const auto& descriptor : descriptors) ids.push_back(descriptor["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"KE001", "KL005", "KL006", "KM002", "KP003"}));
  const RuleInfo* ke001 = nullptr;
  for (const RuleInfo& info : rules)
    if (info.code == "KE001") ke001 = &info;
  ASSERT_NE(ke001, nullptr);
  EXPECT_EQ(descriptors[0]["shortDescription"]["text"], ke001->title);
  // help.text: the explanation, then the example violation and its fix,
  // each under its own heading and indented by four spaces.
  const std::string help = descriptors[0]["help"]["text"];
  ASSERT_FALSE(ke001->example_violation.empty());
  ASSERT_FALSE(ke001->example_fix.empty());
  EXPECT_TRUE(help.starts_with(ke001->explanation)) << help;
  const std::size_t violation = help.find("\nExample of the violation:\n    ");
  const std::size_t fix = help.find("\nThe fix:\n    ");
  ASSERT_NE(violation, std::string::npos) << help;
  ASSERT_NE(fix, std::string::npos) << help;
  EXPECT_LT(violation, fix);
  const std::string first_violation_line = ke001->example_violation.substr(0, ke001->example_violation.find('\n'));
  const std::string first_fix_line = ke001->example_fix.substr(0, ke001->example_fix.find('\n'));
  EXPECT_EQ(help.find("    " + first_violation_line, violation),
            violation + std::string("\nExample of the violation:\n").size());
  EXPECT_EQ(help.find("    " + first_fix_line, fix), fix + std::string("\nThe fix:\n").size());
  EXPECT_NE(descriptors[0]["help"]["markdown"].get<std::string>().find("**The fix:**\n\n```\n"), std::string::npos);
  EXPECT_EQ(descriptors[0]["defaultConfiguration"]["level"], "error");
  EXPECT_EQ(descriptors[1]["defaultConfiguration"]["level"], "warning");  // KL005
}

// helpUri points at the rule's section of docs/rules.md where that page is
// published (--rules-url); without a URL there is none rather than a guess.
TEST(SarifFormat, HelpUriIsTheRulesSectionOfThePublishedCatalogue) {
  const std::vector<RuleInfo> rules = catalogue();
  const std::string url = "https://example.org/kcheck/blob/v1/docs/rules.md";
  const nlohmann::json sarif = render_sarif(sample_report(), rules, std::nullopt, url);
  const nlohmann::json& driver = sarif["runs"][0]["tool"]["driver"];
  EXPECT_EQ(driver["informationUri"], url);
  const std::string page = rule_catalogue_markdown(rules);
  for (const nlohmann::json& descriptor : driver["rules"]) {
    const std::string help = descriptor["helpUri"];
    ASSERT_TRUE(help.starts_with(url + "#")) << help;
    const std::string anchor = help.substr(url.size() + 1);
    EXPECT_NE(page.find("<a id=\"" + anchor + "\"></a>\n### " + descriptor["id"].get<std::string>() + ":"),
              std::string::npos)
        << help;
  }
  const nlohmann::json plain = render_sarif(sample_report(), rules);
  EXPECT_FALSE(plain["runs"][0]["tool"]["driver"].contains("informationUri"));
  for (const nlohmann::json& descriptor : plain["runs"][0]["tool"]["driver"]["rules"])
    EXPECT_FALSE(descriptor.contains("helpUri"));
}

TEST(SarifFormat, ResultsCarryRuleIdLevelLocationAndSymbol) {
  nlohmann::json sarif = render_sarif(sample_report(), catalogue());
  const nlohmann::json& run = sarif["runs"][0];
  EXPECT_EQ(sarif["version"], "2.1.0");
  EXPECT_EQ(run["results"].size(), 5u);
  EXPECT_EQ(run["originalUriBaseIds"]["AUDITED_ROOT"]["uri"], "file:///tmp/my%20kernel/build/");

  const nlohmann::json& python = result_with_rule(sarif, "KP003");
  EXPECT_EQ(python["level"], "error");
  EXPECT_EQ(python["message"]["text"], "match statement needs Python 3.10");
  const nlohmann::json& physical = python["locations"][0]["physicalLocation"];
  EXPECT_EQ(physical["artifactLocation"]["uri"], "torch212-cxx11-cpu-x86_64-linux/relu/helpers.py");
  EXPECT_EQ(physical["artifactLocation"]["uriBaseId"], "AUDITED_ROOT");
  EXPECT_EQ(physical["region"]["startLine"], 7);
  EXPECT_EQ(physical["region"]["startColumn"], 5);
  EXPECT_EQ(run["tool"]["driver"]["rules"][python["ruleIndex"].get<int>()]["id"], "KP003");

  const nlohmann::json& native = result_with_rule(sarif, "KE001");
  EXPECT_EQ(native["locations"][0]["logicalLocations"][0]["name"], "exp@GLIBC_2.29");
  EXPECT_FALSE(native["locations"][0]["physicalLocation"].contains("region")) << "no line for a symbol";
  EXPECT_EQ(native["properties"]["variant"], "torch213-cxx11-cu130-x86_64-linux");

  EXPECT_EQ(result_with_rule(sarif, "KM002")["level"], "warning");
  EXPECT_EQ(result_with_rule(sarif, "KM002")["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
            "/python-depends");
  EXPECT_FALSE(result_with_rule(sarif, "KL006").contains("locations")) << "a tree-level finding names no file";

  const nlohmann::json& suppressed = result_with_rule(sarif, "KL005");
  EXPECT_EQ(suppressed["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "torch212-cxx11-cpu-x86_64-linux/notes%20%231.txt");
  EXPECT_EQ(suppressed["suppressions"][0]["justification"], "kept on purpose");
}

// GitHub code scanning: security rules carry tags and a security-severity,
// every result a fingerprint that survives moved lines, and with --sarif-root
// paths are relative to the repository a monorepo's kernel lives in.
TEST(SarifFormat, SecurityRulesFingerprintsAndASourceRootForCodeScanning) {
  Report report = sample_report();
  report.findings.push_back({"KP006",
                             Severity::warning,
                             "subprocess.run at import",
                             "",
                             "torch212-cxx11-cpu-x86_64-linux/relu/__init__.py",
                             {.line = 3}});
  report.rules_run.push_back("KP006");
  finalise_report(report);
  const nlohmann::json sarif = render_sarif(report, catalogue(), fs::path("/tmp"));
  const nlohmann::json& run = sarif["runs"][0];
  for (const auto& descriptor : run["tool"]["driver"]["rules"]) {
    if (descriptor["id"] == "KP006") {
      EXPECT_EQ(descriptor["properties"]["security-severity"], "8.0");
      EXPECT_EQ(descriptor["properties"]["tags"], nlohmann::json::array({"security"}));
    } else {
      EXPECT_FALSE(descriptor.contains("properties")) << descriptor["id"] << " is not a security rule";
    }
  }
  const nlohmann::json& python = result_with_rule(sarif, "KP003");
  EXPECT_EQ(python["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "my%20kernel/build/torch212-cxx11-cpu-x86_64-linux/relu/helpers.py");
  EXPECT_EQ(python["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"], "SRCROOT");
  EXPECT_EQ(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file:///tmp/");

  Report moved = report;
  for (Finding& finding : moved.findings)
    if (finding.code == "KP003") finding.location.line += 10;  // an edit above the finding
  const std::string fingerprint = python["partialFingerprints"]["kcheckFinding/v1"];
  EXPECT_EQ(fingerprint.size(), 16u);
  EXPECT_EQ(result_with_rule(render_sarif(moved, catalogue()), "KP003")["partialFingerprints"]["kcheckFinding/v1"],
            fingerprint);
  std::set<std::string> distinct;
  for (const auto& result : run["results"]) distinct.insert(result["partialFingerprints"]["kcheckFinding/v1"]);
  EXPECT_EQ(distinct.size(), run["results"].size());
  EXPECT_EQ(validate(write_scratch("code-scanning.sarif", sarif.dump())).exit_code, 0);
}

TEST(SarifFormat, CodesUnknownToTheCatalogueStillGetADescriptor) {
  Report report = sample_report();
  nlohmann::json sarif = render_sarif(report, {});
  const nlohmann::json& descriptors = sarif["runs"][0]["tool"]["driver"]["rules"];
  ASSERT_EQ(descriptors.size(), 5u);
  EXPECT_FALSE(descriptors[0].contains("help"));
  EXPECT_EQ(validate(write_scratch("bare.sarif", sarif.dump())).exit_code, 0);
}

TEST(SarifFormat, HandBuiltReportIsValidAgainstTheSchema) {
  fs::path path = write_scratch("sample.sarif", render_report(sample_report(), OutputFormat::sarif, {{}, catalogue()}));
  RunResult validation = validate(path);
  EXPECT_EQ(validation.exit_code, 0) << validation.err;
}

TEST(SarifFormat, TheValidatorRejectsABrokenSarifLog) {
  nlohmann::json sarif = render_sarif(sample_report(), catalogue());
  sarif["runs"][0]["results"][0]["level"] = "fatal";
  const RunResult validation = validate(write_scratch("broken.sarif", sarif.dump()));
  EXPECT_EQ(validation.exit_code, 1) << validation.err;  // 2 would be the validator's own failure
  EXPECT_NE(validation.err.find("runs/0/results/0/level: 'fatal' is not one of"), std::string::npos) << validation.err;
}

TEST(SarifFormat, TheValidatorsOwnFailureIsNotARejection) {
  const RunResult validation = validate(write_scratch("not-json.sarif", "{ this is not JSON"));
  EXPECT_EQ(validation.exit_code, 2) << validation.err;
  EXPECT_NE(validation.err.find("validator error: JSONDecodeError"), std::string::npos) << validation.err;
}

nlohmann::json sarif_of_live_run(const std::string& tree, int expected_exit) {
  fs::path path = scratch_dir() / (tree.substr(0, tree.find('/')) + ".sarif");
  RunResult run = kcheck("--format sarif -o " + shell_quoted(path) + " " + fixture(tree));
  EXPECT_EQ(run.exit_code, expected_exit) << run.err;
  RunResult validation = validate(path);
  EXPECT_EQ(validation.exit_code, 0) << tree << ": " << validation.err;
  return nlohmann::json::parse(read_text(path));
}

TEST(SarifFormat, LiveRunOnLinksAndSpecialFiles) {
  nlohmann::json sarif = sarif_of_live_run("kl007_links_and_special_files", 1);
  std::multiset<std::string> uris;
  for (const auto& result : sarif["runs"][0]["results"]) {
    if (result["ruleId"] != "KL007") continue;
    EXPECT_EQ(result["level"], "error");
    uris.insert(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].get<std::string>());
  }
  EXPECT_EQ(uris, (std::multiset<std::string>{
                      "build/torch212-cxx11-cpu-x86_64-linux/escape.txt",
                      "build/torch212-cxx11-cpu-x86_64-linux/loop_a", "build/torch212-cxx11-cpu-x86_64-linux/loop_b",
                      "build/torch213-cxx11-cpu-x86_64-linux/card.md", "build/torch213-cxx11-cpu-x86_64-linux/pipe"}));
  EXPECT_EQ(result_with_rule(sarif, "KM007")["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "build/torch213-cxx11-cpu-x86_64-linux/metadata.json");
}

TEST(SarifFormat, LiveRunGivesThePythonLine) {
  nlohmann::json sarif = sarif_of_live_run("kp003_match_statement/build/torch212-cxx11-cpu-x86_64-linux", 1);
  const nlohmann::json& result = result_with_rule(sarif, "KP003");
  EXPECT_EQ(result["level"], "error");
  const nlohmann::json& physical = result["locations"][0]["physicalLocation"];
  EXPECT_EQ(physical["artifactLocation"]["uri"], "helpers.py");
  EXPECT_EQ(physical["region"]["startLine"], 2);
}

TEST(SarifFormat, LiveRunGivesTheSymbolAsALogicalLocation) {
  nlohmann::json sarif = sarif_of_live_run("ke001_glibc_symbol_above_ceiling/build/torch212-cxx11-cpu-x86_64-linux", 1);
  const nlohmann::json& result = result_with_rule(sarif, "KE001");
  EXPECT_EQ(result["level"], "error");
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "_relu_cpu_0a1b2c3.abi3.so");
  EXPECT_EQ(result["locations"][0]["logicalLocations"][0]["name"], "exp@GLIBC_2.29");
}

}  // namespace
}  // namespace kcheck
