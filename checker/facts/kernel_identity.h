#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/facts/tree_facts.h"

namespace kcheck {

// An id `_<module>_<backend>_<unique>` split into its parts
// (build-variants.md §3.2).
struct KernelIdParts {
  std::string module;
  std::string backend;  // full backend name: cpu, cuda, rocm, ...
  std::string unique;   // may be empty when the id ends after the backend
};

// Splits an id. With `module` known (from metadata name) the prefix is
// stripped exactly; otherwise the last `_<known backend>_` separates module
// and unique part. nullopt when the id does not have the shape.
std::optional<KernelIdParts> split_kernel_id(std::string_view id,
                                             std::optional<std::string_view> module = std::nullopt);

// "_relu_cpu_0a1b2c3.abi3.so" -> "_relu_cpu_0a1b2c3" (also `.so`, `.pyd`).
std::string native_module_stem(std::string_view file_name);

// The kernel's Python module name: metadata `name` with '-' -> '_'; when
// metadata has no name, derived from its id or from the native module's
// file name, else from a legacy package (legacy_package_name). nullopt when
// nothing names the kernel.
std::optional<std::string> kernel_module_name(const VariantFacts& variant);

// The package of a legacy variant (build-variants.md §3.5) as its files
// name it: the directory holding the native module, the top-level package
// that prefixes a root native module's name (`_<package>_<unique>`), or the
// only top-level package when there is no top-level __init__.py.
std::optional<std::string> legacy_package_name(const VariantFacts& variant);

// The variant's backend: from the directory name, else metadata backend.type.
std::optional<std::string> variant_backend(const VariantFacts& variant);

// The namespace `_ops.py` reaches through `torch.ops.<ns>`, with its line.
struct OpsPyNamespace {
  std::string name;
  int line = 0;
};
std::optional<OpsPyNamespace> ops_py_namespace(const VariantFacts& variant);

// The namespace of `torch.ops.<ns>...`; "" when the chain is shorter.
std::string torch_ops_chain_namespace(std::string_view chain);

// The variant's own op namespace as each source names it: metadata id,
// `_ops.py`, native module file names and the namespaces they register.
std::vector<std::string> own_op_namespaces(const VariantFacts& variant);

// The id the variant is known by, first found of: metadata id, the native
// module's registered namespace, its file name, `_ops.py`'s namespace.
std::optional<std::string> variant_kernel_id(const VariantFacts& variant);

}  // namespace kcheck
