#pragma once
#include <string>
#include <vector>

#include "checker/core/rule.h"

namespace kcheck {

// `kcheck explain CODE`: the rule's code, severity and title, its explanation,
// then an example of the violation and the same example fixed.
std::string render_explanation(const RuleInfo& rule);

// The explanation and the two examples without the heading line (SARIF help text).
std::string explanation_with_examples(const RuleInfo& rule);

// The same as Markdown, the examples as code blocks (SARIF help markdown).
std::string explanation_markdown(const RuleInfo& rule);

// The whole catalogue as one Markdown page (`kcheck rules --format markdown`,
// committed as docs/rules.md): the families, then each rule under an anchor
// named after its code in lower case ("#ke001"), which SARIF's helpUri links to.
std::string rule_catalogue_markdown(const std::vector<RuleInfo>& catalogue);

// The whole catalogue as JSON (`kcheck rules --format json`): an array of
// every rule in registry order, each with its code, title, default severity,
// security severity (0: not a security rule), explanation and examples.
std::string rule_catalogue_json(const std::vector<RuleInfo>& catalogue);

// The anchor of a rule in that page: "ke001".
std::string rule_anchor(const std::string& code);

}  // namespace kcheck
