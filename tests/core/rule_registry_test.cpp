#include <gtest/gtest.h>

#include <set>

#include "checker/audit/audit.h"

namespace kcheck {
namespace {

TEST(CodeSelection, SelectsByCodeOrPrefixAndIgnoreWins) {
  CodeSelection all;
  EXPECT_TRUE(all.selects("KE001"));
  CodeSelection family{{"KE", "KP003"}, {"KE014"}};
  EXPECT_TRUE(family.selects("KE001"));
  EXPECT_TRUE(family.selects("KP003"));
  EXPECT_FALSE(family.selects("KP001"));
  EXPECT_FALSE(family.selects("KE014"));
}

TEST(RuleRegistry, EveryRuleHasAUniqueCodeTitleAndExplanation) {
  RuleRegistry registry = make_rule_registry();
  std::set<std::string> codes;
  for (const Rule* rule : registry.rules()) {
    const RuleInfo& info = rule->info();
    EXPECT_TRUE(codes.insert(info.code).second) << info.code;
    EXPECT_EQ(info.code.size(), 5u) << info.code;
    EXPECT_FALSE(info.title.empty()) << info.code;
    EXPECT_GT(info.explanation.size(), 80u) << info.code << " needs an explanation with the fix";
  }
  for (const char* code : {"KL001", "KL008", "KM001", "KM007"}) EXPECT_TRUE(codes.contains(code)) << code;
}

}  // namespace
}  // namespace kcheck

namespace kcheck {
namespace {

// Issue #28 item 6: one rule's findings in one file stop at the bound; one
// more finding counts the rest, with the worst severity among them.
TEST(FindingSink, KeepsTheFirstFindingsOfARulePerFileAndCountsTheRest) {
  const RuleInfo info{"KP002", "title", Severity::warning, "", "", "", 0};
  Findings findings;
  {
    FindingSink sink(info, findings);
    for (std::size_t i = 0; i < FindingSink::kMaxFindingsPerFile + 150; ++i)
      sink.report(i == FindingSink::kMaxFindingsPerFile + 7 ? Severity::error : Severity::warning, {"v", "a.py", {}},
                  "import m" + std::to_string(i));
    for (int i = 0; i < 3; ++i) sink.report({"v", "b.py", {}}, "import n");
  }
  ASSERT_EQ(findings.size(), FindingSink::kMaxFindingsPerFile + 3 + 1);
  const Finding& left_out = findings.back();
  EXPECT_EQ(left_out.code, "KP002");
  EXPECT_EQ(left_out.file, "a.py");
  EXPECT_EQ(left_out.severity, Severity::error) << "the worst of those left out";
  EXPECT_EQ(left_out.message,
            "150 more KP002 findings in a.py are not listed (kcheck lists the first 1000 of a rule per file)");
}

}  // namespace
}  // namespace kcheck
