#pragma once
#include <memory>
#include <string_view>
#include <vector>

#include "checker/core/rule.h"

namespace kcheck {

// Code selection as users write it: exact codes ("KE001") or prefixes
// ("KE", "KP00"). An empty select list selects everything.
struct CodeSelection {
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  bool selects(std::string_view code) const;
};

// The set of rules one audit runs, ordered by code. Built explicitly by
// `make_rule_registry()` (checker/audit) from each family's rule table.
class RuleRegistry {
 public:
  void add(std::unique_ptr<Rule> rule);
  const Rule* find(std::string_view code) const;
  // Whether some rule's code is `code` or starts with it ("KP"): what
  // --select, --ignore and a repository's codes may name.
  bool names_a_rule(std::string_view code) const;
  // Rules sorted by code.
  std::vector<const Rule*> rules() const;
  // The optional facts the rules `selection` selects read (collect_facts reads these).
  OptionalFacts optional_facts(const CodeSelection& selection) const;
  // Whether `code` (a code or a prefix) names a rule a repository's `ignore` must not switch off.
  bool switches_off_a_configuration_guard(std::string_view code) const;

 private:
  std::vector<std::unique_ptr<Rule>> rules_;
};

}  // namespace kcheck
