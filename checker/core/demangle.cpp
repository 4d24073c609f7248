#include "checker/core/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace kcheck {

std::string demangle_symbol(std::string_view name) {
  if (!name.starts_with("_Z") || name.size() > kMaxDemangledName) return std::string(name);
  const std::string mangled(name);
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> demangled(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                              &std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : mangled;
}

}  // namespace kcheck
