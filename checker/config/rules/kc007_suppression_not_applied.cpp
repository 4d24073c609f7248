#include <algorithm>

#include "checker/config/rules/config_rule_table.h"
#include "checker/config/repository_config.h"
#include "checker/config/rules/config_rule_support.h"
#include "checker/core/policy.h"
#include "checker/core/rule_registry.h"
#include "checker/facts/tree_facts.h"

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
    if (!tree.suppressions->unusable.empty()) {
      sink.report(Severity::error, config_file_place(tree, 0),
                  tree.suppressions->unusable +
                      "; none of its suppressions or settings is applied, and the "
                      "repository is audited as if it had none");
      return;
    }
    const SuppressionTrust trust = suppression_trust(context.policy, context.options.repository_config_applied);
    for (const Suppression& suppression : tree.suppressions->entries) {
      if (context.registry && !context.registry->names_a_rule(suppression.code))
        sink.report(Severity::error, suppression_place(tree, suppression),
                    suppression_named(tree, suppression) +
                        " names no rule of this kcheck (`kcheck rules` lists "
                        "them): a mistyped code hides nothing");
      else if (std::string why = why_suppression_not_applied(suppression, trust); !why.empty())
        sink.report(suppression_place(tree, suppression),
                    suppression_named(tree, suppression) + " is not applied: " + why);
    }
    check_settings(context, trust, sink);
  }

  // A suppression that hid nothing (like ruff's RUF100): the finding it was
  // written for is gone, or its path never matched. Only one whose rules ran
  // is judged (--select, and the KD rules outside `kcheck run`, leave others
  // unmatched by design); one not applied is check()'s already.
  void after_judgement(const RuleContext& context, const Judgement& judged, FindingSink& sink) const override {
    const TreeFacts& tree = context.tree;
    if (!tree.suppressions) return;
    const SuppressionTrust trust = suppression_trust(context.policy, context.options.repository_config_applied);
    const std::vector<Suppression>& entries = tree.suppressions->entries;
    for (std::size_t i = 0; i < entries.size() && i < judged.suppression_matched.size(); ++i) {
      const Suppression& suppression = entries[i];
      if (judged.suppression_matched[i] || !why_suppression_not_applied(suppression, trust).empty()) continue;
      const bool ran = std::any_of(judged.rules_run.begin(), judged.rules_run.end(),
                                   [&](const std::string& code) { return code.starts_with(suppression.code); });
      if (!ran) continue;
      sink.report(suppression_place(tree, suppression), suppression_named(tree, suppression) +
                                                            " matched no finding: remove it (the finding it was "
                                                            "written for is gone, or its path never matches)");
    }
  }

 private:
  // The settings (policy, select, ignore codes, strict): a code naming no
  // rule is an error; one not applied (--security, --no-repo-config, an
  // `ignore` prefix the policy does not allow) a note.
  static void check_settings(const RuleContext& context, const SuppressionTrust& trust, FindingSink& sink) {
    const TreeFacts& tree = context.tree;
    const RepositorySettings& settings = tree.suppressions->settings;
    const std::string& file = tree.suppressions->file;
    auto not_applied = [&](int line, const std::string& setting, const std::string& why) {
      sink.report(config_file_place(tree, line),
                  file + ":" + std::to_string(line) + ": " + setting + " is not applied: " + why);
    };
    auto check_code = [&](const CodeSetting& code, std::string_view key, bool ignores) {
      if (context.registry && !context.registry->names_a_rule(code.code)) {
        sink.report(Severity::error, config_file_place(tree, code.line),
                    file + ":" + std::to_string(code.line) + ": " + std::string(key) + " names '" + code.code +
                        "', no rule of this kcheck (`kcheck rules` lists them)");
        return;
      }
      const SuppressionTrust judged{trust.repository_config_applied, trust.code_prefixes_allowed || !ignores};
      std::string why = why_setting_not_applied(code.code, judged);
      if (why.empty() && ignores && context.registry && context.registry->switches_off_a_configuration_guard(code.code))
        why = "the rules that judge " + file + " itself (KC006, KC007) always run";
      if (!why.empty()) not_applied(code.line, std::string(key) + " \"" + code.code + "\"", why);
    };
    // A policy that cannot be used: judged with the caller's policy instead,
    // an error (the repository's own gate is not what it asked for).
    if (trust.repository_config_applied && !context.options.policy_from_command_line &&
        !tree.suppressions->policy_problem.empty())
      sink.report(
          Severity::error, config_file_place(tree, settings.policy_line),
          tree.suppressions->policy_problem + "; the audit judges with the " + context.policy.name + " policy instead");
    if (!trust.repository_config_applied) {
      const std::string why = why_setting_not_applied("", trust);
      if (!settings.policy.empty()) not_applied(settings.policy_line, "policy = \"" + settings.policy + "\"", why);
      if (settings.strict)
        not_applied(settings.strict_line, *settings.strict ? "strict = true" : "strict = false", why);
    }
    if (settings.select)
      for (const CodeSetting& code : *settings.select) check_code(code, "select", false);
    for (const CodeSetting& code : settings.ignore) check_code(code, "ignore", true);
  }

  RuleInfo info_{"KC007",
                 "A suppression in kcheck.toml is not applied",
                 Severity::note,
                 R"(A repository's kcheck.toml (or [tool.kcheck]) may silence findings with
`ignore = [{code, path, reason}]`. Some entries are not applied, and this
note names each of them with the reason:

- Under --security (the Hub-side profile) and with --no-repo-config, no
  suppression of the audited repository is applied: an upload must not decide
  its own verdict. The findings it would hide are reported as usual.
- An entry whose code is wider than one rule ("KP", "K") is not applied
  unless the policy allows code prefixes ([suppressions] code-prefixes = true
  in a policy file); the embedded policies do not.
- An entry whose code names no rule at all (a typo: "KL05") is an error.
- A kcheck.toml (or pyproject.toml) kcheck cannot use at all is an error:
  unreadable, a link out of the repository, larger than 1 MiB, not TOML, or
  holding a key kcheck does not know. None of it is applied, and the rest of
  the repository is audited as usual (an upload cannot hide its findings
  behind a config that stops the audit).
- An entry that matched no finding of the rules that ran is reported too
  (like ruff's RUF100): the finding it was written for is gone, or its path
  never matches; remove it.
- A `policy` that cannot be used (neither an embedded policy nor a file of
  the repository, a link out of it, not a valid policy file) is an error; the
  audit judges with the caller's policy (hub unless --policy says otherwise).
- The same holds for the repository's settings (policy, select, the codes of
  `ignore`, strict): under --security or --no-repo-config each is named and
  not applied; a code that names no rule is an error; an `ignore` code wider
  than one rule is applied only where the policy allows prefixes, and none
  switches off KC006 or KC007 (which also run whatever `select` says).

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
)",
                 0,
                 RuleNeeds::source,
                 {},
                 true};
};

}  // namespace

std::unique_ptr<Rule> make_kc007_suppression_not_applied() { return std::make_unique<SuppressionNotApplied>(); }

}  // namespace kcheck
