#pragma once
#include <memory>
#include <string_view>
#include <vector>

#include "checker/core/rule.h"

namespace kcheck {

// The set of rules one audit runs, ordered by code. Built explicitly by
// `make_rule_registry()` (checker/audit) from each analyser's add_*_rules().
class RuleRegistry {
 public:
  void add(std::unique_ptr<Rule> rule);
  const Rule* find(std::string_view code) const;
  // Whether some rule's code is `code` or starts with it ("KP"): what
  // --select, --ignore and a repository's codes may name.
  bool names_a_rule(std::string_view code) const;
  // Rules sorted by code.
  std::vector<const Rule*> rules() const;

 private:
  std::vector<std::unique_ptr<Rule>> rules_;
};

// Code selection as users write it: exact codes ("KE001") or prefixes
// ("KE", "KP00"). An empty select list selects everything.
struct CodeSelection {
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  bool selects(std::string_view code) const;
};

}  // namespace kcheck
