#include "checker/support/demangle.h"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <memory>

namespace kcheck {

namespace {

// Substitutions (`S_`, `S<seq-id>_`) and template parameters (`T_`,
// `T<number>_`): each may repeat an earlier part of the name. Counted on the
// raw text, which over-counts (an `S` inside a source name) but never under.
std::size_t back_references(std::string_view name) {
  std::size_t count = 0;
  for (std::size_t at = 0; at < name.size(); ++at) {
    if (name[at] != 'S' && name[at] != 'T') continue;
    std::size_t end = at + 1;
    while (end < name.size() &&
           (std::isdigit(static_cast<unsigned char>(name[end])) || std::isupper(static_cast<unsigned char>(name[end]))))
      ++end;
    if (end < name.size() && name[end] == '_') ++count;
  }
  return count;
}

}  // namespace

std::optional<std::string> try_demangle(std::string_view name) {
  if (!name.starts_with("_Z") || name.size() > kMaxDemangledName || back_references(name) > kMaxDemangledBackReferences)
    return std::nullopt;
  const std::string mangled(name);
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !demangled) return std::nullopt;
  return std::string(demangled.get());
}

std::string demangle_symbol(std::string_view name) { return try_demangle(name).value_or(std::string(name)); }

}  // namespace kcheck
