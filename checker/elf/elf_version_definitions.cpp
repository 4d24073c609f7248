#include "checker/elf/elf_version_definitions.h"

#include <map>

#include "checker/elf/elf_image.h"
#include "checker/elf/mapped_file.h"

namespace kcheck {

namespace {

constexpr std::uint32_t kDynamicSymbols = 11;              // SHT_DYNSYM
constexpr std::uint32_t kVersionDefinitions = 0x6ffffffd;  // SHT_GNU_verdef
constexpr std::uint32_t kSymbolVersions = 0x6fffffff;      // SHT_GNU_versym
constexpr std::uint16_t kHiddenVersion = 0x8000;           // not the default version
constexpr std::uint64_t kMaxDefinitions = 1u << 16;

// Version index -> name, from .gnu.version_d (Elf_Verdef / Elf_Verdaux).
std::map<std::uint16_t, std::string> read_definition_names(const ElfImage& image) {
  std::map<std::uint16_t, std::string> names;
  const ElfSection* section = image.find_section_of_type(kVersionDefinitions);
  if (section == nullptr) return names;
  const ElfSection& strings = image.section_at(section->link, ".gnu.version_d");
  const auto data = image.contents(*section);
  const std::uint64_t count = section->info != 0 ? section->info : kMaxDefinitions;
  std::uint64_t offset = 0;
  for (std::uint64_t definition = 0; definition < count; ++definition) {
    const std::uint16_t index = image.u16(data, offset + 4);
    const std::uint32_t aux = image.u32(data, offset + 12);
    names[index] = std::string(image.string_at(strings, image.u32(data, offset + aux)));
    const std::uint32_t next = image.u32(data, offset + 16);
    if (next == 0) break;
    offset += next;
  }
  return names;
}

}  // namespace

VersionDefinitions read_version_definitions(const std::filesystem::path& library) {
  VersionDefinitions result;
  const MappedFile mapped(library);
  if (!mapped.error().empty()) {
    result.error = mapped.error();
    return result;
  }
  try {
    const ElfImage image(mapped.bytes());
    const ElfSection* table = image.find_section_of_type(kDynamicSymbols);
    const ElfSection* versions = image.find_section_of_type(kSymbolVersions);
    if (table == nullptr || versions == nullptr) return result;
    const auto names_by_index = read_definition_names(image);
    const ElfSection& strings = image.section_at(table->link, ".dynsym");
    const auto version_data = image.contents(*versions);
    const std::uint64_t count = image.symbol_count(*table);
    for (std::uint64_t index = 1; index < count; ++index) {
      const ElfSymbolEntry entry = image.symbol_at(*table, index);
      if (entry.section_index == 0) continue;  // undefined: a reference, not a definition
      const std::uint16_t raw = image.u16(version_data, index * 2);
      auto name = names_by_index.find(raw & 0x7fff);
      if (name == names_by_index.end()) continue;
      const std::uint8_t type = entry.info & 0xf;
      result.symbols.push_back({std::string(image.string_at(strings, entry.name)), name->second,
                                (raw & kHiddenVersion) == 0, type == 2 || type == 10});
    }
  } catch (const ElfFormatError& error) {
    result.error = error.what();
  }
  return result;
}

}  // namespace kcheck
