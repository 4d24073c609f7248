#pragma once
#include <string>
#include <string_view>

#include "checker/core/rule.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {

// Where a finding about a variant's metadata.json points: the variant, the
// file relative to the audited root, and the JSON pointer of the key.
inline Place metadata_place(const VariantFacts& variant, std::string json_pointer = "") {
  return {.variant = variant.directory_name,
          .file = variant.report_path("metadata.json"),
          .location = {.json_pointer = std::move(json_pointer)}};
}

// "a, b, c" from any range of strings; "(none)" when empty.
template <typename Strings>
std::string comma_list(const Strings& values) {
  std::string list;
  for (std::string_view value : values) list += (list.empty() ? "" : ", ") + std::string(value);
  return list.empty() ? "(none)" : list;
}

// A rule that judges each variant's metadata.json on its own. A single
// native module has no metadata.json to judge, so module scope is skipped;
// variants whose metadata is missing or not a JSON object are left to
// KM001/KM002 unless `judges_unreadable_metadata` says otherwise.
class PerVariantMetadataRule : public Rule {
 public:
  void check(const RuleContext& context, FindingSink& sink) const final {
    if (context.tree.scope == AuditScope::module) return;
    for (const VariantFacts& variant : context.tree.variants) {
      if (judges_unreadable_metadata() || variant.metadata.readable()) check_variant(variant, context, sink);
    }
  }

 protected:
  virtual bool judges_unreadable_metadata() const { return false; }
  virtual void check_variant(const VariantFacts& variant, const RuleContext& context, FindingSink& sink) const = 0;
};

}  // namespace kcheck
