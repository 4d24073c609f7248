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
