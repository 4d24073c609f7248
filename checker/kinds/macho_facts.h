#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checker/support/version.h"

namespace kcheck {

struct MachOFacts {
  std::string error;                          // set when the file is not a usable Mach-O image
  std::string arch;                           // "arm64", "x86_64"
  std::vector<std::string> libraries;         // LC_LOAD_DYLIB names
  std::vector<std::string> imported_symbols;  // undefined symbols, leading '_' stripped
  std::vector<std::string> exported_symbols;  // defined external symbols, leading '_' stripped
  std::optional<Version> minimum_macos;       // LC_BUILD_VERSION minos or LC_VERSION_MIN_MACOSX
};

// Throws std::runtime_error when kcheck's own Mach-O symbol module cannot be
// loaded (a broken installation, not a finding about the file).
MachOFacts read_macho_facts(const std::filesystem::path& file);

}  // namespace kcheck
