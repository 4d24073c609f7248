#include "checker/elf/symbol_ceilings.h"

namespace kcheck {
namespace {

// "GLIBC_PRIVATE" -> "GLIBC" when GLIBC is a capped family.
std::optional<std::string> capped_family_of_named_node(std::string_view node, const std::map<std::string, Version>& ceilings) {
  for (const auto& [family, limit] : ceilings) {
    if (node.starts_with(family + "_")) return family;
  }
  return std::nullopt;
}

}  // namespace

std::string ceiling_arch(const NativeModuleView& view, const ElfFacts& elf) {
  const VariantName* name = view.variant_name();
  return name != nullptr && !name->cpu.empty() ? name->cpu : elf.machine_name;
}

std::vector<SymbolCeilingViolation> symbol_ceiling_violations(const NativeModuleView& view, const ElfFacts& elf,
                                                              const NativePolicy& policy,
                                                              const std::function<bool(std::string_view)>& judged_family) {
  std::vector<SymbolCeilingViolation> violations;
  const auto ceilings = policy.symbol_ceilings.find(ceiling_arch(view, elf));
  if (ceilings == policy.symbol_ceilings.end()) return violations;  // an arch the policy does not cover: KE007
  for (const ElfImportedSymbol& symbol : elf.imports) {
    if (symbol.version.empty() || policy.allowed_named_versions.contains(symbol.version)) continue;
    const auto parsed = parse_symbol_version(symbol.version);
    if (parsed) {
      const auto limit = ceilings->second.find(parsed->family);
      if (limit != ceilings->second.end()) {
        if (judged_family(parsed->family) && parsed->version > limit->second) {
          violations.push_back({&symbol, parsed->family, limit->second});
        }
        continue;
      }
    }
    const auto family = capped_family_of_named_node(symbol.version, ceilings->second);
    if (family && judged_family(*family)) violations.push_back({&symbol, *family, std::nullopt});
  }
  return violations;
}

std::string describe(const SymbolCeilingViolation& violation, const Policy& policy, const std::string& arch) {
  const ElfImportedSymbol& symbol = *violation.symbol;
  std::string text = symbol.name + "@" + symbol.version;
  if (!symbol.library.empty()) text += " (from " + symbol.library + ")";
  if (!violation.limit) {
    return text + " needs the named version " + symbol.version + ", which policy " + policy.name + " does not allow";
  }
  return text + " needs " + violation.family + " " + parse_symbol_version(symbol.version)->version.str() + "; policy " + policy.name +
         " allows " + violation.family + " up to " + violation.limit->str() + " on " + arch;
}

}  // namespace kcheck

namespace kcheck {

void SymbolCeilingRule::check(const RuleContext& context, FindingSink& sink) const {
  const auto judged = [this](std::string_view family) { return judges_family(family); };
  for_each_elf_module(context.tree, [&](const NativeModuleView& view, const ElfFacts& elf) {
    const std::string arch = ceiling_arch(view, elf);
    for (const SymbolCeilingViolation& violation : symbol_ceiling_violations(view, elf, context.policy.native, judged)) {
      const ElfImportedSymbol& symbol = *violation.symbol;
      sink.report(view.place(symbol.name + "@" + symbol.version), "imports " + describe(violation, context.policy, arch));
    }
  });
}

}  // namespace kcheck
