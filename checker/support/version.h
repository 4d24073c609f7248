#pragma once
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcheck {

// A dotted numeric version ("2.28", "3.4.24", "1.3.11"), compared
// component-wise with missing components read as zero.
class Version {
 public:
  Version() = default;
  explicit Version(std::vector<std::uint32_t> components) : components_(std::move(components)) {}

  // Accepts digits separated by dots; nothing else.
  static std::optional<Version> parse(std::string_view text);

  const std::vector<std::uint32_t>& components() const { return components_; }
  std::uint32_t major() const { return components_.empty() ? 0 : components_[0]; }
  std::uint32_t minor() const { return components_.size() < 2 ? 0 : components_[1]; }
  std::string str() const;
  bool empty() const { return components_.empty(); }

  friend std::strong_ordering operator<=>(const Version& a, const Version& b);
  friend bool operator==(const Version& a, const Version& b) { return (a <=> b) == 0; }

 private:
  std::vector<std::uint32_t> components_;
};

// "GLIBC_2.29" -> {"GLIBC", 2.29}; "GLIBCXX_3.4.25" -> {"GLIBCXX", 3.4.25}.
// Version-node names that do not have that shape (e.g. "Base") give nullopt.
struct SymbolVersion {
  std::string family;
  Version version;
};
std::optional<SymbolVersion> parse_symbol_version(std::string_view node_name);

}  // namespace kcheck
