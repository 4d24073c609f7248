#include "checker/core/policy.h"
#include "checker/python/rules/python_rule_table.h"
#include "checker/python/rules/python_rule_support.h"

namespace kcheck {
namespace {

class SyntaxNewerThanFloor final : public PerPythonFileRule {
 public:
  const RuleInfo& info() const override { return info_; }

 private:
  void check_file(const VariantFacts& variant, const PythonFileFacts& file, const RuleContext& context,
                  FindingSink& sink) const override {
    const Version& floor = context.policy.python.floor;
    for (const PythonSyntaxFeature& feature : file.newer_syntax) {
      const std::optional<Version> needed = Version::parse(feature.minimum_python);
      if (!needed || *needed <= floor) continue;
      sink.report(python_place(variant, file, feature.line), feature.construct + " needs Python " +
                                                                 feature.minimum_python +
                                                                 "; the policy's Python floor is " + floor.str());
    }
  }

  RuleInfo info_{"KP003",
                 "Python syntax newer than the policy's Python floor",
                 Severity::error,
                 R"doc(Flags constructs that the policy's Python floor (3.9 for `hub`) cannot parse or
run, each with its line: `match` statements (3.10), `except*` (3.11), PEP 695
type parameters and `type` statements (3.12), PEP 701 f-strings (a quote of
the enclosing f-string reused inside a replacement field, or a backslash,
comment or line break there; 3.12), and `X | Y` unions in annotations that
Python evaluates at run time (function signatures, module- and class-level
annotations) in a module without `from __future__ import annotations` (3.10).
Parenthesized context managers (`with (a as b, c as d):`) are recorded as 3.9:
documented for 3.10, but CPython 3.9's parser accepts them (as does
`ast.parse(..., feature_version=(3, 9))`), so only a floor below 3.9 flags them.

Why: a kernel must import on every Python the policy supports; a syntax
error fails the whole import on the oldest one.

Fix: rewrite with older syntax (if/elif instead of match, `Optional[X]` or
`from __future__ import annotations`, separate f-string parts).
)doc",
                 R"ex(def scale(x: torch.Tensor | None) -> None: ...   # TypeError on Python 3.9)ex",
                 R"ex(from typing import Optional
def scale(x: Optional[torch.Tensor]) -> None: ...)ex",
                 0,
                 RuleNeeds::source};
};

}  // namespace

std::unique_ptr<Rule> make_kp003_syntax_newer_than_floor() { return std::make_unique<SyntaxNewerThanFloor>(); }

}  // namespace kcheck
