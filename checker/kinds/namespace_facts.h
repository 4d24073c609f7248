#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace kcheck {

// A Torch op-library registration written in a kernel's C++ source (a
// source repository, before any build): `TORCH_LIBRARY(name, m)` and its
// _IMPL/_FRAGMENT and STABLE_ forms, with the namespace argument as written.
struct SourceRegistration {
  std::string file;  // relative to the kernel's root
  int line = 0;
  std::string macro;       // "TORCH_LIBRARY", "STABLE_TORCH_LIBRARY_IMPL", ...
  std::string namespace_;  // the first argument: "TORCH_EXTENSION_NAME", "relu", ...
};

// The registrations in one C++/CUDA source text: comments, string and
// character literals skipped; a macro's own definition (`#define
// TORCH_LIBRARY_EXPAND(NAME, M) TORCH_LIBRARY(NAME, M)`) is listed too, with
// its parameter as the argument. Linear in the text.
std::vector<SourceRegistration> find_source_registrations(std::string_view text, const std::string& file);

// Whether a registration's namespace is a literal name (`relu`, `aten`)
// rather than kernel-builder's TORCH_EXTENSION_NAME or a macro parameter
// or macro (all capitals) that stands for it.
bool literal_namespace(const SourceRegistration& registration);

}  // namespace kcheck
