#include "checker/core/kernel_identity.h"

#include <algorithm>

namespace kcheck {

namespace {

std::optional<KernelId> split_at_backend(std::string_view id, std::string_view backend) {
  std::string marker = "_" + std::string(backend) + "_";
  std::size_t at = id.find(marker, 1);
  if (at == std::string_view::npos || at < 2) return std::nullopt;
  std::string_view unique = id.substr(at + marker.size());
  if (unique.empty()) return std::nullopt;
  return KernelId{std::string(id.substr(1, at - 1)), std::string(backend), std::string(unique)};
}

}  // namespace

std::optional<KernelId> split_kernel_id(std::string_view id, std::string_view backend_hint) {
  if (!id.starts_with('_')) return std::nullopt;
  if (!backend_hint.empty())
    if (auto split = split_at_backend(id, backend_hint)) return split;
  std::optional<KernelId> leftmost;
  for (std::string_view backend : kIdBackends) {
    auto split = split_at_backend(id, backend);
    if (split && (!leftmost || split->module.size() < leftmost->module.size())) leftmost = split;
  }
  return leftmost;
}

std::string variant_backend(const VariantFacts& variant) {
  if (variant.name) return variant.name->backend;
  return variant.metadata.backend_type.value_or("");
}

std::optional<std::string> kernel_module_name(const VariantFacts& variant) {
  if (variant.metadata.name) {
    std::string module = *variant.metadata.name;
    std::replace(module.begin(), module.end(), '-', '_');
    return module;
  }
  std::string backend = variant_backend(variant);
  if (variant.metadata.id)
    if (auto id = split_kernel_id(*variant.metadata.id, backend)) return id->module;
  for (const NativeModuleFacts& module : variant.native_modules) {
    std::string_view file = module.relative_path;
    if (file.find('/') != std::string_view::npos) continue;
    if (auto id = split_kernel_id(file.substr(0, file.find('.')), backend)) return id->module;
  }
  return std::nullopt;
}

}  // namespace kcheck
