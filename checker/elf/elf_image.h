#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace kcheck {

// Why an ELF image cannot be read; the message names the table and offset.
class ElfFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ElfSection {
  std::string_view name;
  std::uint32_t type = 0;
  std::uint64_t flags = 0;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t entry_size = 0;
  std::uint32_t link = 0;
  std::uint32_t info = 0;
};

struct ElfSegment {
  std::uint32_t type = 0;
  std::uint32_t flags = 0;
  std::uint64_t offset = 0;
  std::uint64_t file_size = 0;
};

// One entry of a symbol table, class and byte order already decoded.
struct ElfSymbolEntry {
  std::uint32_t name = 0;
  std::uint8_t info = 0;
  std::uint8_t other = 0;
  std::uint16_t section_index = 0;
};

// A validated view of an ELF file in memory. The constructor checks the
// header, the section and program header tables and every section's extent
// against the file size, so later reads cannot leave the mapping; every
// field read is bounds-checked again and throws ElfFormatError.
class ElfImage {
 public:
  explicit ElfImage(std::span<const std::byte> file);  // throws ElfFormatError

  int elf_class() const { return is_64_bit_ ? 64 : 32; }
  bool little_endian() const { return little_endian_; }
  std::uint16_t type() const { return type_; }
  std::uint16_t machine() const { return machine_; }
  const std::vector<ElfSection>& sections() const { return sections_; }
  const std::vector<ElfSegment>& segments() const { return segments_; }

  const ElfSection* find_section(std::string_view name) const;
  const ElfSection* find_section_of_type(std::uint32_t type) const;
  // The section at `index` (sh_link targets); throws when out of range.
  const ElfSection& section_at(std::uint32_t index, std::string_view referrer) const;
  // The section's bytes within the file; empty for SHT_NOBITS.
  std::span<const std::byte> contents(const ElfSection& section) const;
  // Offset of `contents` within the file.
  std::uint64_t file_offset(std::span<const std::byte> contents) const;

  std::uint16_t u16(std::span<const std::byte> data, std::uint64_t offset) const;
  std::uint32_t u32(std::span<const std::byte> data, std::uint64_t offset) const;
  std::uint64_t u64(std::span<const std::byte> data, std::uint64_t offset) const;
  // An address-sized field: 4 bytes in ELFCLASS32, 8 in ELFCLASS64.
  std::uint64_t word(std::span<const std::byte> data, std::uint64_t offset) const;
  std::uint64_t word_size() const { return is_64_bit_ ? 8 : 4; }

  // The NUL-terminated string at `index` of a string table section. All the
  // strings read from one image may total at most kStringBytesPerFileByte
  // times the file's size (plus 1 MiB): entries crafted to point at one long
  // string would otherwise cost entries x length in time and, once copied
  // into facts, memory. Past that it throws ElfFormatError. Not thread-safe.
  std::string_view string_at(const ElfSection& string_table, std::uint64_t index) const;
  static constexpr std::uint64_t kStringBytesPerFileByte = 8;

  // Symbol tables (SHT_SYMTAB, SHT_DYNSYM).
  std::uint64_t symbol_count(const ElfSection& table) const;
  ElfSymbolEntry symbol_at(const ElfSection& table, std::uint64_t index) const;

 private:
  void read_header();
  void read_sections();
  void read_segments();
  void name_sections();

  std::span<const std::byte> file_;
  bool is_64_bit_ = false;
  bool little_endian_ = true;
  std::uint16_t type_ = 0;
  std::uint16_t machine_ = 0;
  std::uint64_t section_table_offset_ = 0;
  std::uint64_t section_count_ = 0;
  std::uint32_t section_names_index_ = 0;
  std::uint64_t segment_table_offset_ = 0;
  std::uint64_t segment_count_ = 0;
  std::vector<ElfSection> sections_;
  std::vector<ElfSegment> segments_;
  mutable std::uint64_t string_bytes_left_ = 0;  // see string_at
};

}  // namespace kcheck
