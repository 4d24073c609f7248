// `kcheck explain CODE`: the explanation, an example of the violation and the
// fix, for every rule this build registers.
#include "checker/report/explain_format.h"

#include <gtest/gtest.h>

#include "checker/audit/audit.h"
#include "tests/report/report_test_support.h"

namespace kcheck {
namespace {

using namespace kcheck::testing;

TEST(ExplainFormat, EveryRegisteredRuleHasAnExampleOfTheViolationAndTheFix) {
  RuleRegistry registry = make_rule_registry();
  ASSERT_GT(registry.rules().size(), 50u);
  for (const Rule* rule : registry.rules()) {
    const RuleInfo& info = rule->info();
    EXPECT_FALSE(info.explanation.empty()) << info.code;
    EXPECT_FALSE(info.example_violation.empty()) << info.code << " has no example of the violation";
    EXPECT_FALSE(info.example_fix.empty()) << info.code << " has no example of the fix";
    EXPECT_NE(info.example_violation, info.example_fix) << info.code;
  }
}

TEST(ExplainFormat, ExplanationThenIndentedExamples) {
  RuleInfo rule{"KX001", "A title", Severity::warning, "What and why.\n\nFix: do this.", "bad()\nworse()", "good()"};
  EXPECT_EQ(render_explanation(rule),
            "KX001 (warning): A title\n\n"
            "What and why.\n\nFix: do this.\n"
            "\nExample of the violation:\n    bad()\n    worse()\n"
            "\nThe fix:\n    good()\n");
}

TEST(ExplainFormat, ARuleWithoutExamplesPrintsItsExplanationOnly) {
  RuleInfo rule{"KX002", "Another", Severity::note, "Only this.\n"};
  EXPECT_EQ(render_explanation(rule), "KX002 (note): Another\n\nOnly this.\n");
}

TEST(ExplainFormat, TheCommandPrintsBothExamples) {
  RunResult result = kcheck("explain KP003");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(result.out.starts_with("KP003 (error): ")) << result.out;
  EXPECT_NE(result.out.find("\nExample of the violation:\n    def scale(x: torch.Tensor | None)"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("\nThe fix:\n    from typing import Optional\n"), std::string::npos) << result.out;
}

}  // namespace
}  // namespace kcheck
