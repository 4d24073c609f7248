#include "checker/config/rules/config_rule_table.h"
#include "checker/config/rules/config_rule_support.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {
namespace {

class SuppressionWithoutReason final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const TreeFacts& tree = context.tree;
    if (!tree.suppressions) return;
    for (const Suppression& suppression : tree.suppressions->entries)
      if (suppression.reason.empty())
        sink.report(suppression_place(tree, suppression),
                    suppression_named(tree, suppression) + " gives no reason; " +
                        (suppression.key == "per-file-ignores"
                             ? "write it as \"" + suppression.path + "\" = {codes = [...], reason = \"why\"}"
                             : std::string("add reason = \"why this finding is acceptable here\"")));
  }

 private:
  RuleInfo info_{"KC006",
                 "A suppression in kcheck.toml gives no reason",
                 Severity::warning,
                 R"(A kernel repository may silence findings it has judged acceptable with
`ignore = [{code, path, reason}]` in kcheck.toml (or the [tool.kcheck] table
of pyproject.toml), or per file with `per-file-ignores = {"GLOB" = {codes =
[...], reason = "..."}}`. Every suppression must say why: a reviewer of the kernel,
or of the report, reads the reason next to the suppressed finding, and a
suppression nobody can justify later should go. A suppression without a
reason still applies; this warning (which fails the gate under --strict)
names it.

Fix: add a `reason` to the entry, or delete the entry.
)",
                 R"(# kcheck.toml
ignore = [
  {code = "KL005", path = "build/*/notes.txt"},
]
)",
                 R"(# kcheck.toml
ignore = [
  {code = "KL005", path = "build/*/notes.txt", reason = "release notes the Hub card links to"},
]
)",
                 0,
                 RuleNeeds::source,
                 {},
                 true};
};

}  // namespace

std::unique_ptr<Rule> make_kc006_suppression_without_reason() { return std::make_unique<SuppressionWithoutReason>(); }

}  // namespace kcheck
