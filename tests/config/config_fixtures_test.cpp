// Runs KC001–KC005 over every kernel source tree in tests/fixtures/config/
// and compares the findings with the exact multiset its expected.toml
// declares ("CODE/severity", "CODE/severity@file" or "CODE/severity@file:line",
// or an inline table `{ finding = "...", message = "text the message must
// contain" }`; tests/support/expected_findings.h): a missing or an extra finding fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <toml++/toml.h>

#include "checker/config/rules/config_rule_table.h"
#include "checker/audit/audit_options.h"
#include "tests/support/expected_findings.h"
#include "checker/core/policy.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(KCHECK_SOURCE_DIR) / "tests/fixtures/config";

struct FixtureCase {
  std::string name;
  fs::path directory;
};

void PrintTo(const FixtureCase& fixture, std::ostream* out) { *out << fixture.name; }

std::vector<FixtureCase> discover_cases() {
  std::vector<FixtureCase> cases;
  for (const fs::directory_entry& entry : fs::directory_iterator(kFixtures))
    if (entry.is_directory()) cases.push_back({entry.path().filename().string(), entry.path()});
  std::sort(cases.begin(), cases.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return cases;
}

struct Expectation {
  std::string policy = "hub";
  std::vector<testing::ExpectedFinding> findings;
};

Expectation read_expectation(const fs::path& directory) {
  toml::table table = toml::parse_file((directory / "expected.toml").string());
  Expectation expectation;
  expectation.policy = table["policy"].value_or(std::string("hub"));
  expectation.findings = testing::read_expected_findings(table);
  return expectation;
}

// What the `kcheck config` audit would report for a source tree.
Findings run_config_rules(const fs::path& kernel_dir, const Policy& policy) {
  TreeFacts tree;
  tree.audited_root = kernel_dir;
  tree.scope = AuditScope::source;
  tree.build_config = read_build_config(kernel_dir);
  RuleRegistry registry;
  add_rules(registry, kConfigRules);
  AuditOptions options;
  RuleContext context{tree, policy, options.rule_options()};
  Findings findings;
  for (const Rule* rule : registry.rules()) {
    FindingSink sink(rule->info(), findings);
    rule->check(context, sink);
  }
  return findings;
}

class ConfigFixture : public ::testing::TestWithParam<FixtureCase> {};

TEST_P(ConfigFixture, ProducesExactlyTheExpectedFindings) {
  const FixtureCase& fixture = GetParam();
  ASSERT_TRUE(fs::exists(fixture.directory / "expected.toml")) << fixture.name << " has no expected.toml";
  Expectation expectation = read_expectation(fixture.directory);
  Findings findings = run_config_rules(fixture.directory, load_policy(expectation.policy));

  const testing::FindingComparison comparison = testing::compare_findings(expectation.findings, findings);
  std::string all;
  for (const Finding& finding : findings) all += "\n  " + testing::describe_finding(finding);
  EXPECT_TRUE(comparison.unreadable.empty())
      << fixture.name << ": expected.toml entries that cannot be read:" << comparison.unreadable;
  EXPECT_TRUE(comparison.missing.empty())
      << fixture.name << ": expected findings not produced:" << comparison.missing << "\nall findings:" << all;
  EXPECT_TRUE(comparison.unexpected.empty()) << fixture.name << ": unexpected findings:" << comparison.unexpected;
}

INSTANTIATE_TEST_SUITE_P(SourceTrees, ConfigFixture, ::testing::ValuesIn(discover_cases()),
                         [](const ::testing::TestParamInfo<FixtureCase>& info) {
                           std::string name = info.param.name;
                           std::replace_if(
                               name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
                           return name;
                         });

TEST(ConfigFixtures, EveryRuleHasAFixtureThatFiresIt) {
  std::set<std::string> fired;
  for (const FixtureCase& fixture : discover_cases())
    for (const testing::ExpectedFinding& expected : read_expectation(fixture.directory).findings)
      fired.insert(expected.code);
  for (const char* code : {"KC001", "KC002", "KC003", "KC004", "KC005"}) EXPECT_TRUE(fired.contains(code)) << code;
}

TEST(ConfigRules, SkipWhenTheTreeHasNoBuildToml) {
  Findings findings = run_config_rules(kFixtures / "no-such-kernel", load_policy("hub"));
  EXPECT_TRUE(findings.empty());
}

TEST(ConfigRules, EveryRuleExplainsItself) {
  RuleRegistry registry;
  add_rules(registry, kConfigRules);
  std::vector<std::string> codes;
  for (const Rule* rule : registry.rules()) {
    codes.push_back(rule->info().code);
    EXPECT_FALSE(rule->info().example_violation.empty()) << rule->info().code;
    EXPECT_FALSE(rule->info().example_fix.empty()) << rule->info().code;
    EXPECT_NE(rule->info().explanation.find("Fix"), std::string::npos) << rule->info().code;
  }
  EXPECT_EQ(codes, (std::vector<std::string>{"KC001", "KC002", "KC003", "KC004", "KC005", "KC006", "KC007"}));
}

}  // namespace
}  // namespace kcheck
