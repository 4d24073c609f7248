#include "checker/builder/symbol_pinning.h"

#include <algorithm>
#include <optional>

#include "checker/elf/elf_version_definitions.h"
#include "checker/elf/symbol_ceilings.h"

namespace kcheck {

namespace {

// Symbols glibc defines only in a version newer than common ceilings, with a
// hidden replacement that keeps their meaning. A replacement may call an older
// glibc entry point (`compat`), bound to its newest version within the
// ceiling as `kcheck_compat_<compat>`; `@STAT_VER@` is the stat ABI version of
// the target CPU.
struct Substitute {
  const char* symbol;
  const char* compat;  // "" when self-contained
  const char* definition;
};
constexpr Substitute kSubstitutes[] = {
    // libstdc++ reads it to skip atomics; 0 ("maybe multi-threaded") is always safe.
    {"__libc_single_threaded", "", "__attribute__((visibility(\"hidden\"))) char __libc_single_threaded = 0;\n"},
    {"arc4random", "",
     "#include <stdint.h>\n#include <sys/random.h>\n"
     "__attribute__((visibility(\"hidden\"))) uint32_t arc4random(void) {\n"
     "  uint32_t value = 0;\n  while (getrandom(&value, sizeof value, 0) != (long)sizeof value) {}\n  return "
     "value;\n}\n"},
    // glibc 2.33 made the stat family real functions; before, they were inline
    // wrappers of __xstat & co. taking the stat ABI version.
    {"stat", "__xstat",
     "__attribute__((visibility(\"hidden\"))) int stat(const char* p, void* b) { return "
     "kcheck_compat___xstat(@STAT_VER@, p, b); }\n"},
    {"stat64", "__xstat64",
     "__attribute__((visibility(\"hidden\"))) int stat64(const char* p, void* b) { return "
     "kcheck_compat___xstat64(@STAT_VER@, p, b); }\n"},
    {"lstat", "__lxstat",
     "__attribute__((visibility(\"hidden\"))) int lstat(const char* p, void* b) { return "
     "kcheck_compat___lxstat(@STAT_VER@, p, b); }\n"},
    {"lstat64", "__lxstat64",
     "__attribute__((visibility(\"hidden\"))) int lstat64(const char* p, void* b) { return "
     "kcheck_compat___lxstat64(@STAT_VER@, p, b); }\n"},
    {"fstat", "__fxstat",
     "__attribute__((visibility(\"hidden\"))) int fstat(int f, void* b) { return kcheck_compat___fxstat(@STAT_VER@, f, "
     "b); }\n"},
    {"fstat64", "__fxstat64",
     "__attribute__((visibility(\"hidden\"))) int fstat64(int f, void* b) { return "
     "kcheck_compat___fxstat64(@STAT_VER@, f, b); }\n"},
    {"fstatat", "__fxstatat",
     "__attribute__((visibility(\"hidden\"))) int fstatat(int d, const char* p, void* b, int f) { return "
     "kcheck_compat___fxstatat(@STAT_VER@, d, p, b, f); }\n"},
    {"fstatat64", "__fxstatat64",
     "__attribute__((visibility(\"hidden\"))) int fstatat64(int d, const char* p, void* b, int f) { return "
     "kcheck_compat___fxstatat64(@STAT_VER@, d, p, b, f); }\n"},
};

const Substitute* substitute_for(const std::string& symbol) {
  for (const Substitute& substitute : kSubstitutes)
    if (symbol == substitute.symbol) return &substitute;
  return nullptr;
}

// The newest version of `symbol` in `definitions` that the policy allows on
// `arch` (the judgement KE001/KE002 make, symbol_ceilings.h), in a capped family.
std::optional<std::string> newest_allowed_version(const VersionDefinitions& definitions, const std::string& symbol,
                                                  const NativePolicy& policy, const std::string& arch,
                                                  const std::map<std::string, Version>& ceilings) {
  std::optional<SymbolVersion> best;
  for (const DefinedSymbolVersion& definition : definitions.symbols) {
    if (definition.symbol != symbol || !definition.is_function) continue;
    auto version = parse_symbol_version(definition.version);
    if (!version || !ceilings.contains(version->family)) continue;
    if (judge_version_node(definition.version, policy, arch, every_family)) continue;
    if (!best || version->version > best->version) best = version;
  }
  if (!best) return std::nullopt;
  return best->family + "_" + best->version.str();
}

}  // namespace

SymbolPinningPlan plan_symbol_pinning(const ElfFacts& module, const NativePolicy& policy, const std::string& arch,
                                      const LibraryLocator& locate_library) {
  SymbolPinningPlan plan;
  const auto ceilings = policy.symbol_ceilings.find(arch);
  if (ceilings == policy.symbol_ceilings.end()) return plan;  // no ceilings for this arch: nothing to keep within
  std::map<std::string, VersionDefinitions> definitions_by_library;
  for (const SymbolCeilingViolation& violation : symbol_ceiling_violations(module, policy, arch, every_family)) {
    if (violation.symbol.empty()) {
      plan.unresolved.push_back((violation.library.empty() ? std::string("the module") : violation.library) +
                                " needs " + violation.version +
                                " in .gnu.version_r, which no import uses: a link option added it (such as "
                                "-z pack-relative-relocs for GLIBC_ABI_DT_RELR); a pin cannot remove it");
      continue;
    }
    const std::string wanted = violation.symbol + "@" + violation.version;
    if (!violation.limit) {
      plan.unresolved.push_back(wanted + ": the named version " + violation.version +
                                " is not allowed, and no "
                                "numbered version can stand in for it");
      continue;
    }
    auto [it, inserted] = definitions_by_library.try_emplace(violation.library);
    if (inserted) it->second = read_version_definitions(locate_library(violation.library));
    if (const Substitute* substitute = substitute_for(violation.symbol)) {
      if (!*substitute->compat) {
        plan.substituted.push_back({violation.symbol, "", ""});
        continue;
      }
      if (auto compat = newest_allowed_version(it->second, substitute->compat, policy, arch, ceilings->second)) {
        plan.substituted.push_back({violation.symbol, substitute->compat, *compat});
        continue;
      }
    }
    if (auto pinned = newest_allowed_version(it->second, violation.symbol, policy, arch, ceilings->second)) {
      plan.pinned.push_back({violation.symbol, violation.library, violation.version, *pinned});
    } else {
      plan.unresolved.push_back(wanted + ": " + violation.library +
                                " defines no version of it within the ceiling, and kcheck has no substitute");
    }
  }
  return plan;
}

std::string render_pinning_source(const SymbolPinningPlan& plan, const std::string& cpu) {
  std::string source = "// Generated by `kcheck build`: keeps imported symbol versions within the policy's ceilings.\n";
  const std::string stat_version = cpu == "aarch64" ? "0" : "1";  // _STAT_VER of the old stat ABI
  for (const SubstitutedSymbol& substituted : plan.substituted) {
    std::string definition = substitute_for(substituted.symbol)->definition;
    if (!substituted.compat.empty()) {
      const std::string compat = "kcheck_compat_" + substituted.compat;
      source += "extern int " + compat + "();\n";
      source += "__asm__(\".symver " + compat + ", " + substituted.compat + "@" + substituted.compat_version + "\");\n";
      for (std::size_t at; (at = definition.find("@STAT_VER@")) != std::string::npos;)
        definition.replace(at, 10, stat_version);
    }
    source += definition;
  }
  for (const PinnedSymbol& pin : plan.pinned) {
    const std::string target = "kcheck_pinned_" + pin.symbol;
    const std::string jump = cpu == "aarch64" ? "b " + target : "jmp " + target + "@PLT";
    source += "// " + pin.symbol + ": " + pin.needed_version + " -> " + pin.pinned_version + "\n";
    source += "__asm__(\".symver " + target + ", " + pin.symbol + "@" + pin.pinned_version + "\");\n";
    source += "__asm__(\".text\\n.globl " + pin.symbol + "\\n.hidden " + pin.symbol + "\\n.type " + pin.symbol +
              ", %function\\n" + pin.symbol + ":\\n\\t" + jump + "\\n.size " + pin.symbol + ", .-" + pin.symbol +
              "\\n\");\n";
  }
  return source;
}

}  // namespace kcheck
