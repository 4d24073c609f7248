#include "checker/python/rules/python_rule_table.h"
#include "checker/python/rules/python_rule_support.h"

namespace kcheck {
namespace {

class PythonSyntaxError final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      for (const PythonFileFacts& file : variant.python_files) {
        if (file.parsed) continue;
        sink.report(python_place(variant, file, file.parse_error_line),
                    "does not parse: " + file.parse_error + " (line " + std::to_string(file.parse_error_line) + ")");
      }
    }
  }

 private:
  RuleInfo info_{"KP007",
                 "Python file does not parse",
                 Severity::error,
                 R"doc(Flags a Python file of a variant that kcheck's Python tokenizer and statement
parser reject: an unterminated string or bracket, inconsistent indentation,
a missing ':' or indented block, a malformed import, a stray decorator. The
finding carries the parser's message and line.

Why: the package import fails on every system, or, for a module imported
lazily, at the first call.

Fix: correct the syntax; `python -m py_compile FILE` with the policy's oldest
Python shows the same error.
)doc",
                 R"ex(def relu(x)          # missing ':'
    return x)ex",
                 R"ex(def relu(x):
    return x)ex",
                 0,
                 RuleNeeds::source};
};

}  // namespace

std::unique_ptr<Rule> make_kp007_python_syntax_error() { return std::make_unique<PythonSyntaxError>(); }

}  // namespace kcheck
