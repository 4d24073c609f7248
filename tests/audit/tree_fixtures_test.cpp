// Runs the audit over every tree fixture (tests/fixtures/trees/<case>/, built
// into KCHECK_TREE_FIXTURES_DIR) and compares the findings with the exact
// multiset its expected.toml declares, code and severity and place: a missing
// or an extra finding fails (tests/support/expected_findings.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <toml++/toml.h>

#include "checker/audit/audit.h"
#include "tests/support/expected_findings.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

struct FixtureCase {
  std::string name;
  fs::path directory;
};

std::vector<FixtureCase> discover_cases() {
  std::vector<FixtureCase> cases;
  std::error_code error;
  for (fs::directory_iterator it(KCHECK_TREE_FIXTURES_DIR, error), end; !error && it != end; it.increment(error))
    if (it->is_directory()) cases.push_back({it->path().filename().string(), it->path()});
  std::sort(cases.begin(), cases.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return cases;
}

struct Expectation {
  std::string policy = "hub";
  fs::path audit_path;
  std::vector<testing::ExpectedFinding> findings;
};

Expectation read_expectation(const FixtureCase& fixture) {
  toml::table table = toml::parse_file((fixture.directory / "expected.toml").string());
  Expectation expectation;
  expectation.policy = table["policy"].value_or(std::string("hub"));
  expectation.audit_path = fixture.directory / table["audit"].value_or(std::string("."));
  expectation.findings = testing::read_expected_findings(table);
  return expectation;
}

class TreeFixture : public ::testing::TestWithParam<FixtureCase> {};

TEST_P(TreeFixture, ProducesExactlyTheExpectedFindings) {
  const FixtureCase& fixture = GetParam();
  ASSERT_TRUE(fs::exists(fixture.directory / "expected.toml")) << fixture.name << " has no expected.toml";
  Expectation expectation = read_expectation(fixture);
  Report report =
      run_audit(expectation.audit_path, load_policy(expectation.policy), AuditOptions{}, make_rule_registry());

  const testing::FindingComparison comparison = testing::compare_findings(expectation.findings, report.findings);
  EXPECT_TRUE(comparison.unreadable.empty())
      << fixture.name << ": expected.toml entries that cannot be read:" << comparison.unreadable;
  EXPECT_TRUE(comparison.missing.empty())
      << fixture.name << ": expected findings not produced:" << comparison.missing
      << (comparison.unexpected.empty() ? "" : "\nunexpected findings:" + comparison.unexpected);
  EXPECT_TRUE(comparison.unexpected.empty()) << fixture.name << ": unexpected findings:" << comparison.unexpected;
}

INSTANTIATE_TEST_SUITE_P(Trees, TreeFixture, ::testing::ValuesIn(discover_cases()),
                         [](const ::testing::TestParamInfo<FixtureCase>& info) {
                           std::string name = info.param.name;
                           std::replace_if(
                               name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
                           return name;
                         });

TEST(TreeFixtures, AtLeastOneCaseWasMaterialised) { EXPECT_FALSE(discover_cases().empty()); }

}  // namespace
}  // namespace kcheck
