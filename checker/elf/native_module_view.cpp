#include "checker/elf/native_module_view.h"

namespace kcheck {

Place NativeModuleView::place(std::string symbol) const {
  Place where{.variant = variant.directory_name, .file = file()};
  where.location.symbol = std::move(symbol);
  return where;
}

std::string_view NativeModuleView::file_name() const {
  const std::string_view path = module.relative_path;
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view NativeModuleView::python_module_name() const {
  const std::string_view name = file_name();
  return name.substr(0, name.find('.'));
}

std::vector<std::string_view> imported_symbol_names(const NativeModuleView& view) {
  std::vector<std::string_view> names;
  if (const ElfFacts* elf = view.elf()) {
    for (const ElfImportedSymbol& symbol : elf->imports) names.push_back(symbol.name);
  } else if (const MachOFacts* macho = view.macho()) {
    for (const std::string& symbol : macho->imported_symbols) names.push_back(symbol);
  }
  return names;
}

std::string join_first(const std::vector<std::string>& items, std::size_t shown) {
  std::string text;
  for (std::size_t index = 0; index < items.size() && index < shown; ++index)
    text += (index ? ", " : "") + items[index];
  if (items.size() > shown) text += " and " + std::to_string(items.size() - shown) + " more";
  return text;
}

bool is_cxx_runtime_library(std::string_view library) {
  return library.starts_with("libstdc++.so") || library.starts_with("libc++.so") || library.starts_with("libc++abi.so");
}

bool glob_match(std::string_view pattern, std::string_view text) {
  const auto star = pattern.find('*');
  if (star == std::string_view::npos) return pattern == text;
  if (!text.starts_with(pattern.substr(0, star))) return false;
  const std::string_view rest = pattern.substr(star + 1);
  for (std::size_t from = star; from <= text.size(); ++from) {
    if (glob_match(rest, text.substr(from))) return true;
  }
  return false;
}

}  // namespace kcheck
