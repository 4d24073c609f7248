// The fixture matcher itself (expected_findings.h): every fixture test rests
// on it, so it must fail for a wrong severity, a missing finding, an extra
// finding and a wrong place, and pass only for an exact match.
#include "tests/support/expected_findings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kcheck::testing {
namespace {

Finding finding(const std::string& code, Severity severity, const std::string& file, int line = 0,
                const std::string& message = "a message") {
  Finding produced;
  produced.code = code;
  produced.severity = severity;
  produced.file = file;
  produced.location.line = line;
  produced.message = message;
  return produced;
}

std::vector<ExpectedFinding> expect(const std::vector<std::string>& specs) {
  std::vector<ExpectedFinding> expected;
  expected.reserve(specs.size());
  for (const std::string& spec : specs) expected.push_back(parse_expected_finding(spec));
  return expected;
}

const Findings kProduced = {
    finding("KE001", Severity::error, "_relu_cpu_0a1b2c3.abi3.so"),
    finding("KP002", Severity::warning, "helpers.py", 3),
};

TEST(ExpectedFindings, AnExactMatchPasses) {
  const FindingComparison comparison =
      compare_findings(expect({"KE001/error@_relu_cpu_0a1b2c3.abi3.so", "KP002/warning@helpers.py:3"}), kProduced);
  EXPECT_TRUE(comparison.exact()) << comparison.missing << comparison.unexpected << comparison.unreadable;
  EXPECT_TRUE(compare_findings(expect({"KP002/warning", "KE001/error"}), kProduced).exact())
      << "code and severity alone match any place";
  EXPECT_TRUE(compare_findings({}, {}).exact()) << "a near miss: nothing expected, nothing produced";
}

TEST(ExpectedFindings, ASeverityMismatchFailsAsMissingAndExtra) {
  const FindingComparison comparison =
      compare_findings(expect({"KE001/warning@_relu_cpu_0a1b2c3.abi3.so", "KP002/warning@helpers.py:3"}), kProduced);
  EXPECT_FALSE(comparison.exact());
  EXPECT_EQ(comparison.missing, "\n  KE001/warning@_relu_cpu_0a1b2c3.abi3.so");
  EXPECT_EQ(comparison.unexpected, "\n  KE001/error@_relu_cpu_0a1b2c3.abi3.so (a message)");
}

TEST(ExpectedFindings, AMissingFindingFails) {
  const FindingComparison comparison = compare_findings(
      expect({"KE001/error@_relu_cpu_0a1b2c3.abi3.so", "KP002/warning@helpers.py:3", "KL005/warning"}), kProduced);
  EXPECT_FALSE(comparison.exact());
  EXPECT_EQ(comparison.missing, "\n  KL005/warning");
  EXPECT_EQ(comparison.unexpected, "");
}

TEST(ExpectedFindings, AnExtraFindingFails) {
  const FindingComparison comparison = compare_findings(expect({"KE001/error"}), kProduced);
  EXPECT_FALSE(comparison.exact());
  EXPECT_EQ(comparison.missing, "");
  EXPECT_EQ(comparison.unexpected, "\n  KP002/warning@helpers.py:3 (a message)");
  EXPECT_FALSE(compare_findings({}, kProduced).exact()) << "a near miss that fires fails";
}

TEST(ExpectedFindings, EachExpectationTakesOneFindingSoCountsMatter) {
  const Findings twice = {finding("KL005", Severity::warning, "a.o"), finding("KL005", Severity::warning, "b.o")};
  EXPECT_FALSE(compare_findings(expect({"KL005/warning"}), twice).exact()) << "one expected, two produced";
  EXPECT_FALSE(compare_findings(expect({"KL005/warning", "KL005/warning", "KL005/warning"}), twice).exact())
      << "three expected, two produced";
  EXPECT_TRUE(compare_findings(expect({"KL005/warning", "KL005/warning"}), twice).exact());
}

TEST(ExpectedFindings, AWrongFileOrLineFails) {
  EXPECT_FALSE(
      compare_findings(expect({"KE001/error@other.abi3.so", "KP002/warning@helpers.py:3"}), kProduced).exact());
  EXPECT_FALSE(
      compare_findings(expect({"KE001/error@_relu_cpu_0a1b2c3.abi3.so", "KP002/warning@helpers.py:4"}), kProduced)
          .exact());
}

// A bare expectation must not take the finding a placed one needs.
TEST(ExpectedFindings, PlacedExpectationsAreMatchedBeforeBareOnes) {
  const Findings produced = {finding("KL005", Severity::warning, "a.o"), finding("KL005", Severity::warning, "b.o")};
  EXPECT_TRUE(compare_findings(expect({"KL005/warning", "KL005/warning@a.o"}), produced).exact());
}

TEST(ExpectedFindings, AMessageExpectationMustBeInTheMessage) {
  const Findings produced = {finding("KE001", Severity::error, "m.so", 0, "GLIBC_2.34 is above the ceiling 2.28")};
  EXPECT_TRUE(compare_findings({parse_expected_finding("KE001/error", "GLIBC_2.34")}, produced).exact());
  const FindingComparison wrong = compare_findings({parse_expected_finding("KE001/error", "GLIBC_2.99")}, produced);
  EXPECT_FALSE(wrong.exact());
  EXPECT_EQ(wrong.missing, "\n  KE001/error with message containing \"GLIBC_2.99\"");
}

TEST(ExpectedFindings, AnUnreadableEntryFailsInsteadOfMatchingAnything) {
  for (const char* spec : {"KE001", "KE001@file.so", "KE001/fatal"}) {
    const FindingComparison comparison = compare_findings(expect({spec}), {});
    EXPECT_FALSE(comparison.exact()) << spec;
    EXPECT_NE(comparison.unreadable, "") << spec;
  }
}

TEST(ExpectedFindings, ParsesEveryFormOfAnEntry) {
  const ExpectedFinding placed = parse_expected_finding("KE001/error@build/v/_m.abi3.so:12");
  EXPECT_EQ(placed.problem, "");
  EXPECT_EQ(placed.code, "KE001");
  EXPECT_EQ(placed.severity, "error");
  EXPECT_EQ(placed.file, "build/v/_m.abi3.so");
  EXPECT_EQ(placed.line, 12);
  const ExpectedFinding bare = parse_expected_finding("KL006/note");
  EXPECT_EQ(bare.code, "KL006");
  EXPECT_EQ(bare.severity, "note");
  EXPECT_FALSE(bare.file);
  EXPECT_FALSE(bare.line);
}

TEST(ExpectedFindings, ReadsPlainAndTableEntriesOfExpectedToml) {
  const toml::table expected = toml::parse(R"(expect = [
  "KE001/error@_m.abi3.so",
  { finding = "KP002/warning@helpers.py:3", message = "numpy" },
])");
  const std::vector<ExpectedFinding> findings = read_expected_findings(expected);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].spec, "KE001/error@_m.abi3.so");
  EXPECT_EQ(findings[0].message_contains, "");
  EXPECT_EQ(findings[1].spec, "KP002/warning@helpers.py:3");
  EXPECT_EQ(findings[1].message_contains, "numpy");
  EXPECT_TRUE(read_expected_findings(toml::table{}).empty());
}

}  // namespace
}  // namespace kcheck::testing
