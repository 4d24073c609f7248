#include "checker/config/rules/config_rule_factories.h"
#include "checker/config/rules/config_rule_support.h"
#include "checker/core/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/tree_facts.h"

namespace kcheck {
namespace {

// The suppressions judge() leaves out (why_suppression_not_applied), each
// named with the reason, so a reader of a Hub-side report sees what the upload
// asked to hide and that it was not hidden.
class SuppressionNotApplied final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const TreeFacts& tree = context.tree;
    if (!tree.suppressions) return;
    const SuppressionTrust trust = suppression_trust(context.policy, context.options);
    for (const Suppression& suppression : tree.suppressions->entries)
      if (std::string why = why_suppression_not_applied(suppression, trust); !why.empty())
        sink.report(suppression_place(tree, suppression), suppression_named(tree, suppression) + " is not applied: " + why);
  }

 private:
  RuleInfo info_{"KC007", "A suppression in kcheck.toml is not applied", Severity::note,
                 R"(A repository's kcheck.toml (or [tool.kcheck]) may silence findings with
`ignore = [{code, path, reason}]`. Some entries are not applied, and this
note names each of them with the reason:

- Under --security (the Hub-side profile) and with --no-repo-config, no
  suppression of the audited repository is applied: an upload must not decide
  its own verdict. The findings it would hide are reported as usual.
- An entry whose code is wider than one rule ("KP", "K") is not applied
  unless the policy allows code prefixes ([suppressions] code-prefixes = true
  in a policy file); the embedded policies do not.

Fix: name one rule per entry (code = "KL005"), with a path and a reason; on
the Hub, fix the finding instead.
)",
                 R"(# kcheck.toml
ignore = [
  {code = "K", reason = "trust me"},
]
)",
                 R"(# kcheck.toml
ignore = [
  {code = "KL005", path = "build/*/notes.txt", reason = "release notes the Hub card links to"},
]
)"};
};

}  // namespace

std::unique_ptr<Rule> make_kc007_suppression_not_applied() { return std::make_unique<SuppressionNotApplied>(); }

}  // namespace kcheck
