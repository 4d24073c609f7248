#include "checker/facts/kernel_identity.h"

#include <algorithm>
#include <array>

namespace kcheck {
namespace {

constexpr std::array<std::string_view, 9> kBackends = {"cann", "cpu",  "cuda", "metal", "neuron",
                                                       "npu",  "rocm", "tpu",  "xpu"};

bool is_unique_material_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool all_unique_material(std::string_view text) {
  return std::all_of(text.begin(), text.end(), is_unique_material_char);
}

void add_unique(std::vector<std::string>& values, std::string value) {
  if (!value.empty() && std::find(values.begin(), values.end(), value) == values.end())
    values.push_back(std::move(value));
}

// "relu/__init__.py" -> "relu"; "" for a file not directly inside a
// top-level directory.
std::string top_level_directory(std::string_view relative_path) {
  const std::size_t slash = relative_path.find('/');
  if (slash == std::string_view::npos || relative_path.find('/', slash + 1) != std::string_view::npos) return {};
  return std::string(relative_path.substr(0, slash));
}

}  // namespace

std::optional<std::string> legacy_package_name(const VariantFacts& variant) {
  // The older builds kept the native module inside the package.
  for (const NativeModuleFacts& native : variant.native_modules) {
    if (std::string directory = top_level_directory(native.relative_path); !directory.empty()) return directory;
  }
  std::vector<std::string> packages;
  for (const FileEntry& file : variant.files) {
    if (!file.relative_path.ends_with("/__init__.py")) continue;
    if (std::string directory = top_level_directory(file.relative_path); !directory.empty())
      packages.push_back(directory);
  }
  // A root native module named `_<package>_<unique>` (ids before the
  // backend was part of them).
  for (const NativeModuleFacts& native : variant.native_modules) {
    const std::string stem = native_module_stem(native.relative_path);
    for (const std::string& package : packages)
      if (stem.starts_with("_" + package + "_")) return package;
  }
  // Only the nested package, no top-level one, and it holds the kernel's
  // generated _ops.py: that package is the kernel (a lone `utils/` is not).
  if (packages.size() == 1 && !variant.find_file("__init__.py") && variant.find_file(packages.front() + "/_ops.py"))
    return packages.front();
  return std::nullopt;
}

std::optional<KernelIdParts> split_kernel_id(std::string_view id, std::optional<std::string_view> module) {
  if (!id.starts_with('_')) return std::nullopt;
  if (module) {
    const std::string prefix = "_" + std::string(*module) + "_";
    if (!id.starts_with(prefix)) return std::nullopt;
    const std::string_view rest = id.substr(prefix.size());
    for (std::string_view backend : kBackends) {
      if (rest == backend) return KernelIdParts{std::string(*module), std::string(backend), ""};
      if (rest.starts_with(backend) && rest.size() > backend.size() && rest[backend.size()] == '_' &&
          all_unique_material(rest.substr(backend.size() + 1))) {
        return KernelIdParts{std::string(*module), std::string(backend), std::string(rest.substr(backend.size() + 1))};
      }
    }
    return std::nullopt;
  }
  // Without the module name: the last `_<backend>_` (or a trailing
  // `_<backend>`) wins, since module names may themselves hold underscores.
  std::optional<KernelIdParts> best;
  std::size_t best_at = 0;
  for (std::string_view backend : kBackends) {
    const std::string separator = "_" + std::string(backend);
    for (std::size_t at = id.find(separator, 1); at != std::string_view::npos; at = id.find(separator, at + 1)) {
      const std::size_t after = at + separator.size();
      const bool ends = after == id.size();
      if (!ends && (id[after] != '_' || !all_unique_material(id.substr(after + 1)))) continue;
      if (at <= 1 || (best && at < best_at)) continue;
      best_at = at;
      best = KernelIdParts{std::string(id.substr(1, at - 1)), std::string(backend),
                           ends ? std::string() : std::string(id.substr(after + 1))};
    }
  }
  return best;
}

std::string native_module_stem(std::string_view file_name) {
  const std::size_t slash = file_name.rfind('/');
  if (slash != std::string_view::npos) file_name = file_name.substr(slash + 1);
  for (std::string_view suffix : {".abi3.so", ".so", ".pyd", ".dylib"}) {
    if (file_name.ends_with(suffix)) return std::string(file_name.substr(0, file_name.size() - suffix.size()));
  }
  return std::string(file_name);
}

std::optional<std::string> kernel_module_name(const VariantFacts& variant) {
  if (variant.metadata.name) {
    std::string module = *variant.metadata.name;
    std::replace(module.begin(), module.end(), '-', '_');
    return module;
  }
  std::vector<std::string> ids;
  if (variant.metadata.id) ids.push_back(*variant.metadata.id);
  for (const NativeModuleFacts& native : variant.native_modules)
    ids.push_back(native_module_stem(native.relative_path));
  for (const std::string& id : ids) {
    if (auto parts = split_kernel_id(id)) return parts->module;
  }
  return legacy_package_name(variant);
}

std::optional<std::string> variant_backend(const VariantFacts& variant) {
  if (variant.name && !variant.name->backend.empty()) return variant.name->backend;
  return variant.metadata.backend_type;
}

std::string torch_ops_chain_namespace(std::string_view chain) {
  constexpr std::string_view prefix = "torch.ops.";
  if (!chain.starts_with(prefix)) return {};
  const std::string_view rest = chain.substr(prefix.size());
  return std::string(rest.substr(0, rest.find('.')));
}

std::optional<OpsPyNamespace> ops_py_namespace(const VariantFacts& variant) {
  for (const PythonFileFacts& file : variant.python_files) {
    if (file.relative_path != "_ops.py") continue;
    for (const PythonAttributeChain& chain : file.torch_ops_chains) {
      std::string name = torch_ops_chain_namespace(chain.chain);
      if (!name.empty()) return OpsPyNamespace{std::move(name), chain.line};
    }
  }
  return std::nullopt;
}

std::vector<std::string> own_op_namespaces(const VariantFacts& variant) {
  std::vector<std::string> namespaces;
  if (variant.metadata.id) add_unique(namespaces, *variant.metadata.id);
  if (auto ops = ops_py_namespace(variant)) add_unique(namespaces, ops->name);
  for (const NativeModuleFacts& native : variant.native_modules) {
    add_unique(namespaces, native_module_stem(native.relative_path));
    if (native.elf) {
      for (const std::string& registered : native.elf->torch_library_namespaces) add_unique(namespaces, registered);
    }
  }
  return namespaces;
}

std::optional<std::string> variant_kernel_id(const VariantFacts& variant) {
  if (variant.metadata.id) return variant.metadata.id;
  for (const NativeModuleFacts& native : variant.native_modules) {
    if (native.elf && !native.elf->torch_library_namespaces.empty())
      return native.elf->torch_library_namespaces.front();
  }
  if (!variant.native_modules.empty()) return native_module_stem(variant.native_modules.front().relative_path);
  if (auto ops = ops_py_namespace(variant)) return ops->name;
  return std::nullopt;
}

}  // namespace kcheck
