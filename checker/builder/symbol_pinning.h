#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "checker/core/policy.h"
#include "checker/support/version.h"
#include "checker/kinds/elf_facts.h"

namespace kcheck {

// How the builder keeps a module's imports within the policy's symbol-version
// ceilings on a host whose C library is newer: after a first link, each
// import above the ceiling is either pinned (a hidden local definition that
// jumps to the newest older version the system library still defines) or
// substituted (a hidden local implementation, for the few symbols glibc only
// has in a version above the ceiling). The module is then linked again.
struct PinnedSymbol {
  std::string symbol;
  std::string library;
  std::string needed_version;  // what the first link bound, e.g. GLIBC_2.34
  std::string pinned_version;  // what the pin binds, e.g. GLIBC_2.2.5
};

// A symbol given a hidden local implementation, which may call an older
// glibc entry point (`compat` at `compat_version`).
struct SubstitutedSymbol {
  std::string symbol;
  std::string compat;
  std::string compat_version;
};

struct SymbolPinningPlan {
  std::vector<PinnedSymbol> pinned;
  std::vector<SubstitutedSymbol> substituted;
  std::vector<std::string> unresolved;  // "symbol@version: why" — the build cannot meet the ceiling
  bool empty() const { return pinned.empty() && substituted.empty(); }
};

// Finds a system library by DT_NEEDED name (e.g. via `cc -print-file-name`).
using LibraryLocator = std::function<std::filesystem::path(const std::string& library)>;

// The plan for `module` (the first link) against the ceilings `policy` sets
// for `arch`. Which imports need a pin is KE001/KE002's own judgement
// (symbol_ceiling_violations, checker/elf/symbol_ceilings.h) over every
// capped family, so what the builder fixes is exactly what the audit flags;
// what no pin can fix (a named node, a version need no import uses, a symbol
// the library defines in no allowed version) is `unresolved`.
SymbolPinningPlan plan_symbol_pinning(const ElfFacts& module, const NativePolicy& policy, const std::string& arch,
                                      const LibraryLocator& locate_library);

// C source holding the pins (assembly trampolines, x86_64 or aarch64) and the
// substitutes of `plan`, all with hidden visibility.
std::string render_pinning_source(const SymbolPinningPlan& plan, const std::string& cpu);

}  // namespace kcheck
