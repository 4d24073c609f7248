#include "checker/core/rule_registry.h"

#include <algorithm>
#include <stdexcept>

namespace kcheck {

void RuleRegistry::add(std::unique_ptr<Rule> rule) {
  if (find(rule->info().code)) throw std::logic_error("rule registered twice: " + rule->info().code);
  rules_.push_back(std::move(rule));
}

const Rule* RuleRegistry::find(std::string_view code) const {
  for (const auto& rule : rules_)
    if (rule->info().code == code) return rule.get();
  return nullptr;
}

bool RuleRegistry::names_a_rule(std::string_view code) const {
  for (const auto& rule : rules_)
    if (rule->info().code.starts_with(code)) return true;
  return false;
}

std::vector<const Rule*> RuleRegistry::rules() const {
  std::vector<const Rule*> sorted;
  for (const auto& rule : rules_) sorted.push_back(rule.get());
  std::sort(sorted.begin(), sorted.end(), [](const Rule* a, const Rule* b) { return a->info().code < b->info().code; });
  return sorted;
}

OptionalFacts RuleRegistry::optional_facts(const CodeSelection& selection) const {
  OptionalFacts facts;
  for (const auto& rule : rules_)
    if (selection.selects(rule->info().code)) facts |= rule->info().reads;
  return facts;
}

bool RuleRegistry::switches_off_a_configuration_guard(std::string_view code) const {
  return !code.empty() && std::any_of(rules_.begin(), rules_.end(), [&](const auto& rule) {
    return rule->info().guards_the_configuration && rule->info().code.starts_with(code);
  });
}

namespace {
bool matches_any(std::string_view code, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& prefix) { return code.starts_with(prefix); });
}
}  // namespace

bool CodeSelection::selects(std::string_view code) const {
  if (!select.empty() && !matches_any(code, select)) return false;
  return !matches_any(code, ignore);
}

}  // namespace kcheck
