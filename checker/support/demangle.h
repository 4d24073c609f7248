#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kcheck {

// A symbol of an upload is untrusted, and the demangler's output can double
// with every back-reference (`S2_`, `T0_`): a 234-byte name expands to 27 MB.
// kcheck demangles only names within both bounds, which real C++ symbols keep
// (the output of one is then at most a few MB).
inline constexpr std::size_t kMaxDemangledName = 1024;
inline constexpr std::size_t kMaxDemangledBackReferences = 20;

// The C++ name of a mangled symbol ("_ZN3foo3barEv" -> "foo::bar()");
// nullopt when the name is not mangled, is outside the bounds above, or the
// demangler rejects it.
std::optional<std::string> try_demangle(std::string_view name);

// The same, or the name itself when there is none. Only for names a finding shows.
std::string demangle_symbol(std::string_view name);

}  // namespace kcheck
