// Runs the audit over every tree fixture (tests/fixtures/trees/<case>/, built
// into KCHECK_TREE_FIXTURES_DIR) and compares the findings with the exact
// multiset its expected.toml declares: a missing or an extra finding fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <toml++/toml.h>

#include "checker/audit/audit.h"

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
  std::vector<std::string> findings;  // "CODE" or "CODE@file"
};

Expectation read_expectation(const FixtureCase& fixture) {
  toml::table table = toml::parse_file((fixture.directory / "expected.toml").string());
  Expectation expectation;
  expectation.policy = table["policy"].value_or(std::string("hub"));
  expectation.audit_path = fixture.directory / table["audit"].value_or(std::string("."));
  if (const toml::array* expect = table["expect"].as_array())
    for (const toml::node& item : *expect) expectation.findings.push_back(item.value_or(std::string("?")));
  return expectation;
}

std::string describe(const Finding& finding) {
  return finding.code + "@" + finding.file + " (" + std::string(to_string(finding.severity)) + ": " +
         finding.message + ")";
}

class TreeFixture : public ::testing::TestWithParam<FixtureCase> {};

TEST_P(TreeFixture, ProducesExactlyTheExpectedFindings) {
  const FixtureCase& fixture = GetParam();
  ASSERT_TRUE(fs::exists(fixture.directory / "expected.toml")) << fixture.name << " has no expected.toml";
  Expectation expectation = read_expectation(fixture);
  Report report = run_audit(expectation.audit_path, load_policy(expectation.policy), AuditOptions{}, make_rule_registry());

  std::vector<const Finding*> unmatched;
  for (const Finding& finding : report.findings) unmatched.push_back(&finding);
  std::vector<std::string> missing;
  auto take = [&](auto matches) {
    auto it = std::find_if(unmatched.begin(), unmatched.end(), matches);
    if (it == unmatched.end()) return false;
    unmatched.erase(it);
    return true;
  };
  // Exact expectations first, so a bare code cannot steal their finding.
  std::vector<std::string> bare_codes;
  for (const std::string& expected : expectation.findings) {
    auto at = expected.find('@');
    if (at == std::string::npos) {
      bare_codes.push_back(expected);
      continue;
    }
    std::string code = expected.substr(0, at), file = expected.substr(at + 1);
    if (!take([&](const Finding* f) { return f->code == code && f->file == file; })) missing.push_back(expected);
  }
  for (const std::string& code : bare_codes)
    if (!take([&](const Finding* f) { return f->code == code; })) missing.push_back(code);

  std::string extra;
  for (const Finding* finding : unmatched) extra += "\n  " + describe(*finding);
  std::string absent;
  for (const std::string& expected : missing) absent += "\n  " + expected;
  EXPECT_TRUE(missing.empty()) << fixture.name << ": expected findings not produced:" << absent
                               << (extra.empty() ? "" : "\nunexpected findings:" + extra);
  EXPECT_TRUE(unmatched.empty()) << fixture.name << ": unexpected findings:" << extra;
}

INSTANTIATE_TEST_SUITE_P(Trees, TreeFixture, ::testing::ValuesIn(discover_cases()),
                         [](const ::testing::TestParamInfo<FixtureCase>& info) {
                           std::string name = info.param.name;
                           std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(c); }, '_');
                           return name;
                         });

TEST(TreeFixtures, AtLeastOneCaseWasMaterialised) { EXPECT_FALSE(discover_cases().empty()); }

}  // namespace
}  // namespace kcheck
