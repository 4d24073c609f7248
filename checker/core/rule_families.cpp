#include "checker/core/rule_families.h"

#include <cctype>

namespace kcheck {

namespace {

constexpr RuleFamily kFamilies[] = {
#include "rule_families.inc"  // generated from rules/families.toml
};

}  // namespace

std::span<const RuleFamily> rule_families() { return kFamilies; }

const RuleFamily* family_of_code(std::string_view code) {
  std::size_t letters = 0;
  while (letters < code.size() && std::isalpha(static_cast<unsigned char>(code[letters]))) ++letters;
  for (const RuleFamily& family : kFamilies)
    if (code.substr(0, letters) == family.prefix) return &family;
  return nullptr;
}

}  // namespace kcheck
