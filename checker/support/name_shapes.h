#pragma once
// The shapes of names kcheck recognises (a kernel name, a capability, a
// source file), matched linearly (text_scan.h says why kcheck uses no regex matcher).

#include <string_view>

namespace kcheck {

// ^[a-z][-a-z0-9]*[a-z0-9]$: at least two characters, no '_', no uppercase.
bool is_kernel_name_shape(std::string_view name);

// ^[0-9]+\.[0-9]+[af]?(\+PTX)?$, e.g. "8.0", "9.0a", "10.0f+PTX".
bool is_cuda_capability_shape(std::string_view capability);

// ^gfx[0-9]+[a-z]?$, e.g. "gfx90a", "gfx942".
bool is_rocm_arch_shape(std::string_view arch);

// A C, C++, CUDA, HIP, Objective-C++ or Metal source or header, by the end of
// its name: what a kernel's build compiles and what `__FILE__` expands to.
bool names_compiled_source(std::string_view path);

}  // namespace kcheck
