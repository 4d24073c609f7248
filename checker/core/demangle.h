#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace kcheck {

// The C++ name of a mangled symbol ("_ZN3foo3barEv" -> "foo::bar()"), or the
// name itself when it is not mangled, or longer than kMaxDemangledName (a
// symbol of an upload is untrusted: the demangler's work grows with it).
// Only for names a finding shows, and the report formats that show them.
inline constexpr std::size_t kMaxDemangledName = 4096;
std::string demangle_symbol(std::string_view name);

}  // namespace kcheck
