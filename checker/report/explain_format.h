#pragma once
#include <string>

#include "checker/core/rule.h"

namespace kcheck {

// `kcheck explain CODE`: the rule's code, severity and title, its explanation,
// then an example of the violation and the same example fixed.
std::string render_explanation(const RuleInfo& rule);

// The explanation and the two examples without the heading line (SARIF help text).
std::string explanation_with_examples(const RuleInfo& rule);

// The same as Markdown, the examples as code blocks (SARIF help markdown).
std::string explanation_markdown(const RuleInfo& rule);

}  // namespace kcheck
