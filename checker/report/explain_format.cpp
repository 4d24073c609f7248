#include "checker/report/explain_format.h"

namespace kcheck {

namespace {

std::string with_final_newline(std::string text) {
  if (!text.empty() && !text.ends_with("\n")) text += "\n";
  return text;
}

std::string indented(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : with_final_newline(text)) {
    if (line_start && c != '\n') out += "    ";
    out += c;
    line_start = c == '\n';
  }
  return out;
}

}  // namespace

std::string explanation_with_examples(const RuleInfo& rule) {
  std::string text = with_final_newline(rule.explanation);
  if (!rule.example_violation.empty()) text += "\nExample of the violation:\n" + indented(rule.example_violation);
  if (!rule.example_fix.empty()) text += "\nThe fix:\n" + indented(rule.example_fix);
  return text;
}

std::string render_explanation(const RuleInfo& rule) {
  return rule.code + " (" + std::string(to_string(rule.default_severity)) + "): " + rule.title + "\n\n" +
         explanation_with_examples(rule);
}

std::string explanation_markdown(const RuleInfo& rule) {
  std::string text = with_final_newline(rule.explanation);
  if (!rule.example_violation.empty())
    text += "\n**Example of the violation:**\n\n```\n" + with_final_newline(rule.example_violation) + "```\n";
  if (!rule.example_fix.empty()) text += "\n**The fix:**\n\n```\n" + with_final_newline(rule.example_fix) + "```\n";
  return text;
}

}  // namespace kcheck
