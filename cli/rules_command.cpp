// `kcheck rules`: a line per rule, or the whole catalogue (markdown: as
// docs/rules.md holds it; json); `kcheck explain CODE`: one rule.
#include <iostream>

#include "checker/audit/audit.h"
#include "checker/report/explain_format.h"
#include "cli/commands.h"
#include "cli/invocation.h"

namespace kcheck::cli {

void RulesCommand::add_to(CLI::App& parent) {
  app = add_command(parent, "rules", "list every rule code with its severity and title");
}

int RulesCommand::run(const ReportArguments& arguments) const {
  const RuleRegistry rules = make_rule_registry();
  const Output output = settle_output(arguments, rules);
  switch (output.format.format) {
    case OutputFormat::markdown:
      std::cout << rule_catalogue_markdown(rule_catalogue(rules));
      return 0;
    case OutputFormat::json:
      std::cout << rule_catalogue_json(rule_catalogue(rules));
      return 0;
    case OutputFormat::text:
      break;
    default:
      throw std::invalid_argument("kcheck rules lists the rules as text, json or markdown, not --format " +
                                  arguments.format);
  }
  for (const Rule* rule : rules.rules()) {
    const RuleInfo& info = rule->info();
    const std::string severity(to_string(info.default_severity));
    std::cout << info.code << "  " << severity << std::string(8 - severity.size(), ' ') << info.title << "\n";
  }
  return 0;
}

void ExplainCommand::add_to(CLI::App& parent) {
  app = add_command(parent, "explain", "print a rule's explanation, with the fix");
  app->add_option("code", code, "rule code, e.g. KE001")->required();
}

int ExplainCommand::run() const {
  const RuleRegistry rules = make_rule_registry();
  const Rule* rule = rules.find(code);
  if (!rule) throw std::invalid_argument("unknown rule code '" + code + "' (see `kcheck rules`)");
  std::cout << render_explanation(rule->info());
  return 0;
}

}  // namespace kcheck::cli
