#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/core/policy.h"
#include "checker/elf/native_module_view.h"

namespace kcheck {

// A version node the module needs that the policy does not allow: above the
// family's ceiling, or a named node such as GLIBC_PRIVATE. Either an
// imported symbol needs it, or a non-weak entry of .gnu.version_r that no
// import refers to (GLIBC_ABI_DT_RELR): the loader checks both alike.
struct SymbolCeilingViolation {
  std::string version;            // the node, e.g. "GLIBC_2.29", "GLIBC_ABI_DT_RELR"
  std::string library;            // the library that must provide it; empty when unknown
  std::string symbol;             // the import that needs it; empty for a bare version need
  std::string family;             // "GLIBC"
  std::optional<Version> needed;  // the release it stands for; empty for a disallowed named node
  std::optional<Version> limit;   // the ceiling; empty for a disallowed named node
};

// Selects the version families judged ("GLIBC" for KE001; every family for
// the builder, which keeps all of them within the ceilings).
using FamilySelector = std::function<bool(std::string_view family)>;
bool every_family(std::string_view family);

// The one judgement of a version node against the policy's ceilings for
// `arch`, shared by KE001/KE002 and the builder's symbol pinning: the
// violation `node` makes (symbol and library left empty), or nothing when
// the node is allowed, its family is not judged, or the policy caps no
// family it belongs to.
std::optional<SymbolCeilingViolation> judge_version_node(const std::string& node, const NativePolicy& policy,
                                                         const std::string& arch, const FamilySelector& judged_family);

// The violations among the module's imports and version needs, for the
// version families that `judged_family` selects, against the ceilings of
// `arch`. Empty when the policy has no ceilings for `arch` (KE007's case).
std::vector<SymbolCeilingViolation> symbol_ceiling_violations(const ElfFacts& elf, const NativePolicy& policy,
                                                              const std::string& arch,
                                                              const FamilySelector& judged_family);

// The same for a module of a variant: the ceilings are those of the
// variant's arch (of the ELF machine when the variant name is unknown).
std::vector<SymbolCeilingViolation> symbol_ceiling_violations(const NativeModuleView& view, const ElfFacts& elf,
                                                              const NativePolicy& policy,
                                                              const FamilySelector& judged_family);

// "imports fcntl64@GLIBC_2.29 (from libc.so.6), which needs GLIBC 2.29; policy hub allows GLIBC up to 2.28 on x86_64"
// "libc.so.6 needs GLIBC_ABI_DT_RELR (glibc 2.36) ..., which no import uses ...; policy hub allows ..."
std::string describe(const SymbolCeilingViolation& violation, const Policy& policy, const std::string& arch);

std::string ceiling_arch(const NativeModuleView& view, const ElfFacts& elf);

}  // namespace kcheck
