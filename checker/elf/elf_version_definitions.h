#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace kcheck {

// A symbol a shared library defines, with the version node it is defined
// under (e.g. pthread_once under GLIBC_2.2.5 and, as default, GLIBC_2.34).
struct DefinedSymbolVersion {
  std::string symbol;
  std::string version;      // "GLIBC_2.34"
  bool is_default = false;  // "@@": what an unversioned reference binds to
  bool is_function = false;
};

// The versioned definitions of a library's .dynsym (from .gnu.version and
// .gnu.version_d). Empty when the file has none; never throws.
struct VersionDefinitions {
  std::vector<DefinedSymbolVersion> symbols;
  std::string error;
};
VersionDefinitions read_version_definitions(const std::filesystem::path& library);

}  // namespace kcheck
