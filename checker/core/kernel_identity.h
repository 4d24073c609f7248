#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "checker/core/tree_facts.h"

namespace kcheck {

// The backends an id can carry (build-variants.md §3.2).
inline constexpr std::string_view kIdBackends[] = {"cann", "cpu", "cuda", "metal", "neuron", "rocm", "tpu", "xpu"};

// The parts of an id "_<module>_<backend>_<unique>".
struct KernelId {
  std::string module;
  std::string backend;
  std::string unique;
};

// Splits an id; `backend_hint` (the variant's backend) resolves ids whose
// module name contains another backend's name. nullopt when not of that shape.
std::optional<KernelId> split_kernel_id(std::string_view id, std::string_view backend_hint = {});

// The kernel's Python module name (`name` with '-' as '_'): from metadata
// `name`, else from metadata `id`, else from the native module file name.
std::optional<std::string> kernel_module_name(const VariantFacts& variant);

// The variant's backend: from its name, else from metadata.
std::string variant_backend(const VariantFacts& variant);

}  // namespace kcheck
