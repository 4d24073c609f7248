#pragma once
#include <string_view>

namespace kcheck {

// SHA-256 (hex) over the sources kcheck's analysers were built from, the
// compiler and the build type, computed at build time (cmake/build_id.cmake).
// Two builds that could compute different facts have different ids.
std::string_view analyser_build_id();

}  // namespace kcheck
