#pragma once
#include <string>
#include <string_view>

namespace kcheck {

// The C++ name of a mangled symbol ("_ZN3foo3barEv" -> "foo::bar()"), or the
// name itself when it is not mangled. Only for names a finding shows.
std::string demangle_symbol(std::string_view name);

}  // namespace kcheck
