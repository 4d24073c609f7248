#include "checker/support/version.h"

#include <charconv>

namespace kcheck {

std::optional<Version> Version::parse(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::vector<std::uint32_t> components;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = text.find('.', start);
    std::string_view part = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    std::uint32_t value = 0;
    auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || error != std::errc() || end != part.data() + part.size()) return std::nullopt;
    components.push_back(value);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return Version(std::move(components));
}

std::string Version::str() const {
  std::string text;
  for (std::size_t i = 0; i < components_.size(); ++i) {
    if (i) text += '.';
    text += std::to_string(components_[i]);
  }
  return text;
}

std::strong_ordering operator<=>(const Version& a, const Version& b) {
  std::size_t n = std::max(a.components_.size(), b.components_.size());
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t x = i < a.components_.size() ? a.components_[i] : 0;
    std::uint32_t y = i < b.components_.size() ? b.components_[i] : 0;
    if (x != y) return x <=> y;
  }
  return std::strong_ordering::equal;
}

std::optional<SymbolVersion> parse_symbol_version(std::string_view node_name) {
  // The family is everything before the first '_' (GLIBC, GLIBCXX, CXXABI,
  // GCC); "CXXABI_TM_1" then has the non-numeric version "TM_1".
  std::size_t underscore = node_name.find('_');
  if (underscore == std::string_view::npos || underscore == 0) return std::nullopt;
  auto version = Version::parse(node_name.substr(underscore + 1));
  if (!version) return std::nullopt;
  return SymbolVersion{std::string(node_name.substr(0, underscore)), *version};
}

}  // namespace kcheck
