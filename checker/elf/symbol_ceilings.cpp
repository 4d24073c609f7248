#include "checker/elf/symbol_ceilings.h"

#include <algorithm>
#include <cctype>

namespace kcheck {
namespace {

using Ceilings = std::map<std::string, Version>;

// "GLIBC_PRIVATE" -> "GLIBC" when GLIBC is a capped family.
std::optional<std::string> capped_family_of_named_node(std::string_view node, const Ceilings& ceilings) {
  for (const auto& [family, limit] : ceilings) {
    if (node.starts_with(family + "_")) return family;
  }
  return std::nullopt;
}

// The release a node stands for: its own number, or the release that
// introduced a named node the policy knows (GLIBC_ABI_DT_RELR: GLIBC 2.36).
std::optional<SymbolVersion> release_of(const std::string& node, const NativePolicy& policy) {
  const auto named = policy.named_version_releases.find(node);
  if (named != policy.named_version_releases.end()) return named->second;
  return parse_symbol_version(node);
}

// The violation `node` makes, if any; symbol and library are left to the caller.
std::optional<SymbolCeilingViolation> judge_node(const std::string& node, const NativePolicy& policy,
                                                 const Ceilings& ceilings, const FamilySelector& judged_family) {
  if (node.empty() || policy.allowed_named_versions.contains(node)) return std::nullopt;
  if (const auto release = release_of(node, policy)) {
    const auto limit = ceilings.find(release->family);
    if (limit != ceilings.end()) {
      if (!judged_family(release->family) || release->version <= limit->second) return std::nullopt;
      return SymbolCeilingViolation{node, {}, {}, release->family, release->version, limit->second};
    }
  }
  const auto family = capped_family_of_named_node(node, ceilings);
  if (!family || !judged_family(*family)) return std::nullopt;
  return SymbolCeilingViolation{node, {}, {}, *family, std::nullopt, std::nullopt};
}

bool some_import_uses(const ElfFacts& elf, const ElfVersionNeed& need) {
  return std::any_of(elf.imports.begin(), elf.imports.end(), [&](const ElfImportedSymbol& symbol) {
    return symbol.version == need.version && symbol.library == need.library;
  });
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

std::string ceiling_arch(const NativeModuleView& view, const ElfFacts& elf) {
  const VariantName* name = view.variant_name();
  return name != nullptr && !name->cpu.empty() ? name->cpu : elf.machine_name;
}

bool every_family(std::string_view /*family*/) { return true; }

std::optional<SymbolCeilingViolation> judge_version_node(const std::string& node, const NativePolicy& policy,
                                                         const std::string& arch, const FamilySelector& judged_family) {
  const auto ceilings = policy.symbol_ceilings.find(arch);
  if (ceilings == policy.symbol_ceilings.end()) return std::nullopt;
  return judge_node(node, policy, ceilings->second, judged_family);
}

std::vector<SymbolCeilingViolation> symbol_ceiling_violations(const NativeModuleView& view, const ElfFacts& elf,
                                                              const NativePolicy& policy,
                                                              const FamilySelector& judged_family) {
  return symbol_ceiling_violations(elf, policy, ceiling_arch(view, elf), judged_family);
}

std::vector<SymbolCeilingViolation> symbol_ceiling_violations(const ElfFacts& elf, const NativePolicy& policy,
                                                              const std::string& arch,
                                                              const FamilySelector& judged_family) {
  std::vector<SymbolCeilingViolation> violations;
  const auto ceilings = policy.symbol_ceilings.find(arch);
  if (ceilings == policy.symbol_ceilings.end()) return violations;  // an arch the policy does not cover: KE007
  for (const ElfImportedSymbol& symbol : elf.imports) {
    if (auto violation = judge_node(symbol.version, policy, ceilings->second, judged_family)) {
      violation->symbol = symbol.name;
      violation->library = symbol.library;
      violations.push_back(std::move(*violation));
    }
  }
  // A need no import uses is still checked by the loader; weak needs only
  // make it warn.
  for (const ElfVersionNeed& need : elf.version_needs) {
    if (need.weak || some_import_uses(elf, need)) continue;
    if (auto violation = judge_node(need.version, policy, ceilings->second, judged_family)) {
      violation->library = need.library;
      violations.push_back(std::move(*violation));
    }
  }
  return violations;
}

std::string describe(const SymbolCeilingViolation& violation, const Policy& policy, const std::string& arch) {
  std::string text;
  if (!violation.symbol.empty()) {
    text = "imports " + violation.symbol + "@" + violation.version;
    if (!violation.library.empty()) text += " (from " + violation.library + ")";
    text += ", which needs ";
  } else {
    text = (violation.library.empty() ? std::string("the module") : violation.library) + " needs " + violation.version;
    const bool named = !parse_symbol_version(violation.version);
    if (named && violation.needed) text += " (" + lowercase(violation.family) + " " + violation.needed->str() + ")";
    text += " in .gnu.version_r, which no import uses but the loader checks all the same; it needs ";
  }
  if (!violation.limit) {
    return text + "the named version " + violation.version + ", which policy " + policy.name + " does not allow";
  }
  return text + violation.family + " " + violation.needed->str() + "; policy " + policy.name + " allows " +
         violation.family + " up to " + violation.limit->str() + " on " + arch;
}

}  // namespace kcheck
