// Runs KC001–KC005 over every kernel source tree in tests/fixtures/config/
// and compares the findings with the exact multiset its expected.toml
// declares ("CODE", "CODE@file" or "CODE@file:line", or an inline table
// `{ finding = "...", message = "text the message must contain" }`): a
// missing or an extra finding fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <toml++/toml.h>

#include "checker/config/config_rules.h"
#include "checker/core/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/tree_facts.h"

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

// One expected finding: where it is, and optionally text its message holds.
struct ExpectedFinding {
  std::string spec;              // "CODE", "CODE@file" or "CODE@file:line"
  std::string message_contains;  // "" when any message will do
};

struct Expectation {
  std::string policy = "hub";
  std::vector<ExpectedFinding> findings;
};

ExpectedFinding read_expected_finding(const toml::node& item) {
  if (const toml::table* table = item.as_table())
    return {(*table)["finding"].value_or(std::string("?")), (*table)["message"].value_or(std::string())};
  return {item.value_or(std::string("?")), ""};
}

Expectation read_expectation(const fs::path& directory) {
  toml::table table = toml::parse_file((directory / "expected.toml").string());
  Expectation expectation;
  expectation.policy = table["policy"].value_or(std::string("hub"));
  if (const toml::array* expect = table["expect"].as_array())
    for (const toml::node& item : *expect) expectation.findings.push_back(read_expected_finding(item));
  return expectation;
}

// What the `kcheck config` audit would report for a source tree.
Findings run_config_rules(const fs::path& kernel_dir, const Policy& policy) {
  TreeFacts tree;
  tree.audited_root = kernel_dir;
  tree.scope = AuditScope::source;
  tree.build_config = read_build_config(kernel_dir);
  RuleRegistry registry;
  add_config_rules(registry);
  AuditOptions options;
  RuleContext context{tree, policy, options};
  Findings findings;
  for (const Rule* rule : registry.rules()) {
    FindingSink sink(rule->info(), findings);
    rule->check(context, sink);
  }
  return findings;
}

std::string with_line(const Finding& finding) {
  return finding.code + "@" + finding.file + ":" + std::to_string(finding.location.line);
}

std::string describe(const Finding& finding) {
  return with_line(finding) + " (" + std::string(to_string(finding.severity)) + ": " + finding.message + ")";
}

// Whether `finding` satisfies "CODE", "CODE@file" or "CODE@file:line".
bool matches_place(const std::string& expected, const Finding& finding) {
  auto at = expected.find('@');
  if (at == std::string::npos) return finding.code == expected;
  std::string place = expected.substr(at + 1);
  if (place.find(':') != std::string::npos) return with_line(finding) == expected;
  return finding.code == expected.substr(0, at) && finding.file == place;
}

bool matches(const ExpectedFinding& expected, const Finding& finding) {
  return matches_place(expected.spec, finding) && finding.message.find(expected.message_contains) != std::string::npos;
}

int specificity(const ExpectedFinding& expected) {
  const std::string& spec = expected.spec;
  int place = spec.find(':') != std::string::npos ? 2 : spec.find('@') != std::string::npos ? 1 : 0;
  return place * 2 + (expected.message_contains.empty() ? 0 : 1);
}

std::string describe(const ExpectedFinding& expected) {
  return expected.spec + (expected.message_contains.empty() ? "" : " with message containing \"" + expected.message_contains + "\"");
}

class ConfigFixture : public ::testing::TestWithParam<FixtureCase> {};

TEST_P(ConfigFixture, ProducesExactlyTheExpectedFindings) {
  const FixtureCase& fixture = GetParam();
  ASSERT_TRUE(fs::exists(fixture.directory / "expected.toml")) << fixture.name << " has no expected.toml";
  Expectation expectation = read_expectation(fixture.directory);
  Findings findings = run_config_rules(fixture.directory, load_policy(expectation.policy));

  std::vector<const Finding*> unmatched;
  for (const Finding& finding : findings) unmatched.push_back(&finding);
  // Most specific expectations first, so a bare code cannot steal their finding.
  std::stable_sort(expectation.findings.begin(), expectation.findings.end(),
                   [](const ExpectedFinding& a, const ExpectedFinding& b) { return specificity(a) > specificity(b); });
  std::string missing;
  for (const ExpectedFinding& expected : expectation.findings) {
    auto it = std::find_if(unmatched.begin(), unmatched.end(), [&](const Finding* f) { return matches(expected, *f); });
    if (it == unmatched.end())
      missing += "\n  " + describe(expected);
    else
      unmatched.erase(it);
  }
  std::string extra;
  for (const Finding* finding : unmatched) extra += "\n  " + describe(*finding);
  std::string all;
  for (const Finding& finding : findings) all += "\n  " + describe(finding);
  EXPECT_TRUE(missing.empty()) << fixture.name << ": expected findings not produced:" << missing
                               << "\nall findings:" << all;
  EXPECT_TRUE(unmatched.empty()) << fixture.name << ": unexpected findings:" << extra;
}

INSTANTIATE_TEST_SUITE_P(SourceTrees, ConfigFixture, ::testing::ValuesIn(discover_cases()),
                         [](const ::testing::TestParamInfo<FixtureCase>& info) {
                           std::string name = info.param.name;
                           std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
                           return name;
                         });

TEST(ConfigFixtures, EveryRuleHasAFixtureThatFiresIt) {
  std::set<std::string> fired;
  for (const FixtureCase& fixture : discover_cases())
    for (const ExpectedFinding& expected : read_expectation(fixture.directory).findings)
      fired.insert(expected.spec.substr(0, expected.spec.find('@')));
  for (const char* code : {"KC001", "KC002", "KC003", "KC004", "KC005"}) EXPECT_TRUE(fired.contains(code)) << code;
}

TEST(ConfigRules, SkipWhenTheTreeHasNoBuildToml) {
  Findings findings = run_config_rules(kFixtures / "no-such-kernel", load_policy("hub"));
  EXPECT_TRUE(findings.empty());
}

TEST(ConfigRules, EveryRuleExplainsItself) {
  RuleRegistry registry;
  add_config_rules(registry);
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
