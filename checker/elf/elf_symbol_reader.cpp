#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "checker/support/demangle.h"
#include "checker/elf/elf_readers.h"

namespace kcheck {
namespace {

constexpr std::uint32_t kSymbolTable = 2;              // SHT_SYMTAB
constexpr std::uint32_t kDynamicSymbols = 11;          // SHT_DYNSYM
constexpr std::uint32_t kVersionNeeds = 0x6ffffffe;    // SHT_GNU_verneed
constexpr std::uint32_t kSymbolVersions = 0x6fffffff;  // SHT_GNU_versym
constexpr std::uint16_t kUndefined = 0;                // SHN_UNDEF
constexpr std::uint64_t kMaxVersionNeeds = 1u << 16;
constexpr std::uint16_t kWeakVersionNeed = 2;  // VER_FLG_WEAK

// What a version index of .gnu.version names: "GLIBC_2.29" from "libc.so.6".
struct VersionNeed {
  std::string version;
  std::string library;
};

// Version index -> need, from .gnu.version_r (indices not listed there are
// local, global or defined by the module itself). Every need is also listed
// in `all_needs`, in section order.
std::vector<std::optional<VersionNeed>> read_version_needs(const ElfImage& image,
                                                           std::vector<ElfVersionNeed>& all_needs) {
  std::vector<std::optional<VersionNeed>> needs;
  const ElfSection* section = image.find_section_of_type(kVersionNeeds);
  if (section == nullptr) return needs;
  const ElfSection& strings = image.section_at(section->link, ".gnu.version_r");
  const auto data = image.contents(*section);
  const std::uint64_t file_count = section->info != 0 ? section->info : kMaxVersionNeeds;
  // Entries are 16 bytes; chains that visit more than fit in the section share
  // entries (several files pointing at one long aux chain): refuse them, or
  // a few KB could cost billions of steps.
  std::uint64_t entries_left = data.size() / 16;
  const auto visit = [&] {
    if (entries_left-- == 0)
      throw ElfFormatError(".gnu.version_r: the version-need chains visit more entries than the section holds (" +
                           std::to_string(data.size() / 16) + ")");
  };
  // The loader (glibc's _dl_check_map_versions) follows vn_next/vna_next
  // until 0 and ignores the counts; readelf trusts the counts. Follow the
  // chains as the loader does, and call a chain that disagrees with its
  // count malformed, so both readings agree on every file accepted.
  // A step to the next entry must land on a whole entry inside the section.
  const auto step = [&](std::uint64_t from, std::uint32_t next) {
    const std::uint64_t to = from + next;
    if (to + 16 > data.size())
      throw ElfFormatError("truncated: .gnu.version_r chain steps to " + std::to_string(to) +
                           ", past the end of the section (" + std::to_string(data.size()) + " bytes)");
    return to;
  };
  std::uint64_t offset = 0;
  std::uint64_t files = 0;
  while (true) {
    visit();
    ++files;
    const std::uint16_t version_count = image.u16(data, offset + 2);
    const std::string library(image.string_at(strings, image.u32(data, offset + 4)));
    std::uint64_t aux = offset + image.u32(data, offset + 8);
    std::uint64_t versions = 0;
    while (version_count != 0) {
      visit();
      ++versions;
      const std::uint16_t version_index = image.u16(data, aux + 6) & 0x7fff;
      if (needs.size() <= version_index) needs.resize(version_index + 1);
      needs[version_index] = VersionNeed{std::string(image.string_at(strings, image.u32(data, aux + 8))), library};
      all_needs.push_back({needs[version_index]->version, library, (image.u16(data, aux + 4) & kWeakVersionNeed) != 0});
      const std::uint32_t next = image.u32(data, aux + 12);
      if (next == 0) break;
      aux = step(aux, next);
    }
    if (versions != version_count)
      throw ElfFormatError(".gnu.version_r: '" + library + "' declares " + std::to_string(version_count) +
                           " versions but its chain holds " + std::to_string(versions));
    const std::uint32_t next = image.u32(data, offset + 12);
    if (next == 0) break;
    offset = step(offset, next);
  }
  if (section->info != 0 && files != file_count)
    throw ElfFormatError(".gnu.version_r: the section declares " + std::to_string(file_count) +
                         " libraries but its chain holds " + std::to_string(files));
  return needs;
}

SymbolBinding binding_of(std::uint8_t info) {
  switch (info >> 4) {
    case 0:
      return SymbolBinding::local;
    case 1:
      return SymbolBinding::global;
    case 2:
      return SymbolBinding::weak;
    case 10:
      return SymbolBinding::unique;  // STB_GNU_UNIQUE
    default:
      return SymbolBinding::other;
  }
}

SymbolType type_of(std::uint8_t info) {
  switch (info & 0xf) {
    case 1:
    case 5:
      return SymbolType::object;  // STT_OBJECT, STT_COMMON
    case 2:
    case 10:
      return SymbolType::function;  // STT_FUNC, STT_GNU_IFUNC
    case 6:
      return SymbolType::tls;
    default:
      return SymbolType::other;
  }
}

SymbolVisibility visibility_of(std::uint8_t other) {
  switch (other & 3) {
    case 1:
      return SymbolVisibility::internal;
    case 2:
      return SymbolVisibility::hidden;
    case 3:
      return SymbolVisibility::protected_visibility;
    default:
      return SymbolVisibility::default_visibility;
  }
}

// Calls visit(name, entry, index) for every named symbol of a table.
template <typename Visit>
void for_each_symbol(const ElfImage& image, const ElfSection& table, std::string_view table_name, Visit visit) {
  const ElfSection& names = image.section_at(table.link, table_name);
  const std::uint64_t count = image.symbol_count(table);
  for (std::uint64_t index = 1; index < count; ++index) {
    const ElfSymbolEntry entry = image.symbol_at(table, index);
    const std::string_view name = image.string_at(names, entry.name);
    if (!name.empty()) visit(name, entry, index);
  }
}

// The registrations of torch/library.h and torch/csrc/stable/library.h, as
// the static-initialiser names they expand to. Fragments end in "_<uid>".
struct TorchRegistrationPrefix {
  std::string_view prefix;
  bool ends_in_uid;
};
constexpr TorchRegistrationPrefix kTorchRegistrationPrefixes[] = {
    {"STABLE_TORCH_LIBRARY_FRAGMENT_static_init_", true},
    {"STABLE_TORCH_LIBRARY_FRAGMENT_init_", true},
    {"STABLE_TORCH_LIBRARY_static_init_", false},
    {"STABLE_TORCH_LIBRARY_init_", false},
    {"TORCH_LIBRARY_FRAGMENT_static_init_", true},
    {"TORCH_LIBRARY_FRAGMENT_init_", true},
    {"TORCH_LIBRARY_static_init_", false},
    {"TORCH_LIBRARY_init_", false},
};

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view strip_uid(std::string_view name) {
  const auto underscore = name.rfind('_');
  if (underscore == std::string_view::npos || underscore + 1 == name.size()) return name;
  for (const char c : name.substr(underscore + 1)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return name;
  }
  return name.substr(0, underscore);
}

// "_ZL30TORCH_LIBRARY_static_init_myops" -> "myops".
std::optional<std::string> torch_library_namespace(std::string_view symbol) {
  if (symbol.find("TORCH_LIBRARY_") == std::string_view::npos) return std::nullopt;
  // Mangled names carry length prefixes that would run into the identifier.
  const std::string readable = demangle_symbol(symbol);
  for (std::size_t start = 0; start < readable.size(); ++start) {
    if (start > 0 && is_identifier_char(readable[start - 1])) continue;
    const std::string_view rest = std::string_view(readable).substr(start);
    for (const auto& registration : kTorchRegistrationPrefixes) {
      if (!rest.starts_with(registration.prefix)) continue;
      std::string_view name = rest.substr(registration.prefix.size());
      std::size_t length = 0;
      while (length < name.size() && is_identifier_char(name[length])) ++length;
      name = name.substr(0, length);
      if (registration.ends_in_uid) name = strip_uid(name);
      if (!name.empty()) return std::string(name);
    }
  }
  return std::nullopt;
}

// The distinct namespaces in order of appearance, at most
// kMaxTorchLibraryNamespaces of them (a module registers one or two); a set
// answers "seen?" so that a table of 100,000s of registrations stays linear.
class NamespaceList {
 public:
  explicit NamespaceList(ElfFacts& facts) : facts_(facts) {}

  void add(std::string name) {
    if (seen_.contains(name)) return;
    if (facts_.torch_library_namespaces.size() >= kMaxTorchLibraryNamespaces) {
      facts_.more_torch_library_namespaces = true;
      return;
    }
    seen_.insert(name);
    facts_.torch_library_namespaces.push_back(std::move(name));
  }

 private:
  ElfFacts& facts_;
  std::set<std::string> seen_;
};

}  // namespace

void read_dynamic_symbols(const ElfImage& image, ElfFacts& facts) {
  const ElfSection* table = image.find_section_of_type(kDynamicSymbols);
  if (table == nullptr) return;
  const auto needs = read_version_needs(image, facts.version_needs);
  const ElfSection* versions = image.find_section_of_type(kSymbolVersions);
  const auto version_data = versions != nullptr ? image.contents(*versions) : std::span<const std::byte>{};
  for_each_symbol(
      image, *table, ".dynsym", [&](std::string_view name, const ElfSymbolEntry& entry, std::uint64_t index) {
        const SymbolBinding binding = binding_of(entry.info);
        if (binding == SymbolBinding::local) return;
        if (entry.section_index == kUndefined) {
          ElfImportedSymbol& imported = facts.imports.emplace_back();
          imported.name = name;
          imported.weak = binding == SymbolBinding::weak;
          if (versions == nullptr) return;
          const std::uint16_t version_index = image.u16(version_data, index * 2) & 0x7fff;
          if (version_index < needs.size() && needs[version_index]) {
            imported.version = needs[version_index]->version;
            imported.library = needs[version_index]->library;
          }
          return;
        }
        facts.exports.push_back({std::string(name), binding, visibility_of(entry.other), type_of(entry.info)});
      });
}

void read_torch_library_namespaces(const ElfImage& image, const MappedFile& file, ElfFacts& facts) {
  // A large library's .symtab and its names run to tens of MB (93 MB in
  // libtorch_cpu.so): every kReleaseEvery symbols, what was read of both
  // leaves the resident set, so it stays at a few MB whatever the size (the
  // names of 2048 symbols may lie on as many pages: 8 MB at most).
  constexpr std::uint64_t kReleaseEvery = 2048;
  NamespaceList namespaces(facts);
  for (const auto& [type, table_name] : {std::pair{kSymbolTable, ".symtab"}, std::pair{kDynamicSymbols, ".dynsym"}}) {
    const ElfSection* table = image.find_section_of_type(type);
    if (table == nullptr) continue;
    const auto entries = image.contents(*table);
    const auto names = image.contents(image.section_at(table->link, table_name));
    const auto release = [&] {
      file.release(image.file_offset(entries), entries.size());
      file.release(image.file_offset(names), names.size());
    };
    std::uint64_t read_since_release = 0;
    for_each_symbol(image, *table, table_name, [&](std::string_view name, const ElfSymbolEntry&, std::uint64_t) {
      if (auto found = torch_library_namespace(name)) namespaces.add(std::move(*found));
      if (++read_since_release == kReleaseEvery) {
        release();
        read_since_release = 0;
      }
    });
    release();
  }
}

}  // namespace kcheck
