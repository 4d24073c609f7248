#include "checker/elf/elf_image.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace kcheck {
namespace {

constexpr std::uint32_t kSectionNoBits = 8;           // SHT_NOBITS
constexpr std::uint16_t kExtendedIndex = 0xffff;      // SHN_XINDEX
constexpr std::uint64_t kMaxTableEntries = 1u << 24;  // far above any real table

bool fits(std::uint64_t offset, std::uint64_t size, std::uint64_t total) {
  return offset <= total && size <= total - offset;
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

template <typename T>
T read_raw(std::span<const std::byte> data, std::uint64_t offset, bool swap) {
  if (!fits(offset, sizeof(T), data.size())) {
    throw ElfFormatError("truncated: a " + std::to_string(sizeof(T)) + "-byte field at " + hex(offset) +
                         " lies past the end of its table (" + hex(data.size()) + " bytes)");
  }
  T value;
  std::memcpy(&value, data.data() + offset, sizeof(T));
  if (!swap) return value;
  if constexpr (sizeof(T) == 2) return __builtin_bswap16(value);
  if constexpr (sizeof(T) == 4) return __builtin_bswap32(value);
  if constexpr (sizeof(T) == 8) return __builtin_bswap64(value);
  return value;
}

bool host_is_little_endian() {
  const std::uint16_t probe = 1;
  std::uint8_t first;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

}  // namespace

ElfImage::ElfImage(std::span<const std::byte> file)
    : file_(file), string_bytes_left_(kStringBytesPerFileByte * file.size() + (std::uint64_t{1} << 20)) {
  read_header();
  read_sections();
  read_segments();
  name_sections();
}

std::uint16_t ElfImage::u16(std::span<const std::byte> data, std::uint64_t offset) const {
  return read_raw<std::uint16_t>(data, offset, little_endian_ != host_is_little_endian());
}
std::uint32_t ElfImage::u32(std::span<const std::byte> data, std::uint64_t offset) const {
  return read_raw<std::uint32_t>(data, offset, little_endian_ != host_is_little_endian());
}
std::uint64_t ElfImage::u64(std::span<const std::byte> data, std::uint64_t offset) const {
  return read_raw<std::uint64_t>(data, offset, little_endian_ != host_is_little_endian());
}
std::uint64_t ElfImage::word(std::span<const std::byte> data, std::uint64_t offset) const {
  return is_64_bit_ ? u64(data, offset) : u32(data, offset);
}

void ElfImage::read_header() {
  static constexpr unsigned char kMagic[4] = {0x7f, 'E', 'L', 'F'};
  if (file_.size() < 16 || std::memcmp(file_.data(), kMagic, 4) != 0)
    throw ElfFormatError("not an ELF file (wrong magic)");
  const auto ident = [&](int index) { return static_cast<unsigned>(file_[index]); };
  if (ident(4) != 1 && ident(4) != 2) throw ElfFormatError("invalid ELF class " + std::to_string(ident(4)));
  if (ident(5) != 1 && ident(5) != 2) throw ElfFormatError("invalid ELF data encoding " + std::to_string(ident(5)));
  is_64_bit_ = ident(4) == 2;
  little_endian_ = ident(5) == 1;
  const std::uint64_t header_size = is_64_bit_ ? 64 : 52;
  if (file_.size() < header_size) throw ElfFormatError("truncated: the file is shorter than an ELF header");

  type_ = u16(file_, 16);
  machine_ = u16(file_, 18);
  const std::uint64_t table_fields = is_64_bit_ ? 32 : 28;  // e_phoff
  segment_table_offset_ = word(file_, table_fields);
  section_table_offset_ = word(file_, table_fields + word_size());
  const std::uint64_t counts = is_64_bit_ ? 54 : 42;  // e_phentsize
  const std::uint16_t segment_entry_size = u16(file_, counts);
  segment_count_ = u16(file_, counts + 2);
  const std::uint16_t section_entry_size = u16(file_, counts + 4);
  section_count_ = u16(file_, counts + 6);
  section_names_index_ = u16(file_, counts + 8);

  if (segment_count_ > 0 && segment_entry_size != (is_64_bit_ ? 56 : 32)) {
    throw ElfFormatError("invalid program header entry size " + std::to_string(segment_entry_size));
  }
  const bool has_sections = section_count_ > 0 || section_table_offset_ != 0;
  if (has_sections && section_entry_size != (is_64_bit_ ? 64 : 40)) {
    throw ElfFormatError("invalid section header entry size " + std::to_string(section_entry_size));
  }
}

void ElfImage::read_sections() {
  if (section_table_offset_ == 0) return;
  const std::uint64_t entry_size = is_64_bit_ ? 64 : 40;
  if (!fits(section_table_offset_, entry_size, file_.size())) {
    throw ElfFormatError("truncated: section header table at " + hex(section_table_offset_) +
                         " lies past the end of the file (" + hex(file_.size()) + " bytes)");
  }
  const auto first = file_.subspan(section_table_offset_, entry_size);
  // Extended numbering: the real count and name index live in section 0.
  if (section_count_ == 0) section_count_ = is_64_bit_ ? u64(first, 32) : u32(first, 20);
  if (section_names_index_ == kExtendedIndex) section_names_index_ = u32(first, is_64_bit_ ? 40 : 24);
  if (section_count_ > kMaxTableEntries || !fits(section_table_offset_, section_count_ * entry_size, file_.size())) {
    throw ElfFormatError("truncated: section header table (" + std::to_string(section_count_) + " entries at " +
                         hex(section_table_offset_) + ") ends past the end of the file (" + hex(file_.size()) +
                         " bytes)");
  }
  const auto table = file_.subspan(section_table_offset_, section_count_ * entry_size);
  sections_.reserve(section_count_);
  for (std::uint64_t index = 0; index < section_count_; ++index) {
    const std::uint64_t at = index * entry_size;
    ElfSection section;
    section.type = u32(table, at + 4);
    if (is_64_bit_) {
      section.flags = u64(table, at + 8);
      section.offset = u64(table, at + 24);
      section.size = u64(table, at + 32);
      section.link = u32(table, at + 40);
      section.info = u32(table, at + 44);
      section.entry_size = u64(table, at + 56);
    } else {
      section.flags = u32(table, at + 8);
      section.offset = u32(table, at + 16);
      section.size = u32(table, at + 20);
      section.link = u32(table, at + 24);
      section.info = u32(table, at + 28);
      section.entry_size = u32(table, at + 36);
    }
    // The null section (SHN_UNDEF) has no contents: its fields hold the
    // extended counts read above, and a link or name index of 0 must not
    // reach wherever they point (found by fuzz_elf).
    if (index == 0) section.offset = 0, section.size = 0;
    if (index > 0 && section.type != kSectionNoBits && !fits(section.offset, section.size, file_.size())) {
      throw ElfFormatError("truncated: section " + std::to_string(index) + " (" + hex(section.offset) + " + " +
                           hex(section.size) + ") ends past the end of the file (" + hex(file_.size()) + " bytes)");
    }
    sections_.push_back(section);
  }
}

void ElfImage::name_sections() {
  if (sections_.empty() || section_names_index_ == 0) return;  // SHN_UNDEF: no section names
  if (section_names_index_ >= sections_.size()) {
    throw ElfFormatError("section name table index " + std::to_string(section_names_index_) + " is out of range (" +
                         std::to_string(sections_.size()) + " sections)");
  }
  const ElfSection& names = sections_[section_names_index_];
  const auto table = file_.subspan(section_table_offset_);
  const std::uint64_t entry_size = is_64_bit_ ? 64 : 40;
  for (std::uint64_t index = 1; index < sections_.size(); ++index) {
    sections_[index].name = string_at(names, u32(table, index * entry_size));
  }
}

void ElfImage::read_segments() {
  if (segment_count_ == 0) return;
  const std::uint64_t entry_size = is_64_bit_ ? 56 : 32;
  if (!fits(segment_table_offset_, segment_count_ * entry_size, file_.size())) {
    throw ElfFormatError("truncated: program header table (" + std::to_string(segment_count_) + " entries at " +
                         hex(segment_table_offset_) + ") ends past the end of the file (" + hex(file_.size()) +
                         " bytes)");
  }
  const auto table = file_.subspan(segment_table_offset_, segment_count_ * entry_size);
  for (std::uint64_t index = 0; index < segment_count_; ++index) {
    const std::uint64_t at = index * entry_size;
    ElfSegment segment;
    segment.type = u32(table, at);
    if (is_64_bit_) {
      segment.flags = u32(table, at + 4);
      segment.offset = u64(table, at + 8);
      segment.file_size = u64(table, at + 32);
    } else {
      segment.offset = u32(table, at + 4);
      segment.file_size = u32(table, at + 16);
      segment.flags = u32(table, at + 24);
    }
    segments_.push_back(segment);
  }
}

const ElfSection* ElfImage::find_section(std::string_view name) const {
  for (const ElfSection& section : sections_) {
    if (section.name == name) return &section;
  }
  return nullptr;
}

const ElfSection* ElfImage::find_section_of_type(std::uint32_t type) const {
  for (const ElfSection& section : sections_) {
    if (section.type == type) return &section;
  }
  return nullptr;
}

const ElfSection& ElfImage::section_at(std::uint32_t index, std::string_view referrer) const {
  if (index == 0 || index >= sections_.size()) {
    throw ElfFormatError(std::string(referrer) + " links to section " + std::to_string(index) +
                         ", which does not exist");
  }
  return sections_[index];
}

std::span<const std::byte> ElfImage::contents(const ElfSection& section) const {
  if (section.type == kSectionNoBits) return {};
  return file_.subspan(section.offset, section.size);  // extent checked in read_sections
}

std::uint64_t ElfImage::file_offset(std::span<const std::byte> contents) const {
  return static_cast<std::uint64_t>(contents.data() - file_.data());
}

std::string_view ElfImage::string_at(const ElfSection& string_table, std::uint64_t index) const {
  const auto table = contents(string_table);
  if (index >= table.size()) {
    throw ElfFormatError("string index " + hex(index) + " is past the end of string table " +
                         std::string(string_table.name) + " (" + hex(table.size()) + " bytes)");
  }
  const char* start = reinterpret_cast<const char*>(table.data()) + index;
  const void* end = std::memchr(start, '\0', table.size() - index);
  if (end == nullptr)
    throw ElfFormatError("string at " + hex(index) + " in " + std::string(string_table.name) + " is not terminated");
  const std::size_t length = static_cast<std::size_t>(static_cast<const char*>(end) - start);
  if (length + 1 > string_bytes_left_) {
    throw ElfFormatError("the string tables are referenced far beyond their size (more than " +
                         std::to_string(kStringBytesPerFileByte) + " bytes of names per byte of the file, last at " +
                         hex(index) + " in " + std::string(string_table.name) +
                         "): entries crafted to share long strings");
  }
  string_bytes_left_ -= length + 1;
  return {start, length};
}

std::uint64_t ElfImage::symbol_count(const ElfSection& table) const {
  const std::uint64_t entry_size = is_64_bit_ ? 24 : 16;
  if (table.entry_size != entry_size) {
    throw ElfFormatError("symbol table " + std::string(table.name) + " has entry size " +
                         std::to_string(table.entry_size) + ", expected " + std::to_string(entry_size));
  }
  return table.size / entry_size;
}

ElfSymbolEntry ElfImage::symbol_at(const ElfSection& table, std::uint64_t index) const {
  const auto data = contents(table);
  ElfSymbolEntry symbol;
  if (is_64_bit_) {
    const std::uint64_t at = index * 24;
    symbol.name = u32(data, at);
    symbol.info = read_raw<std::uint8_t>(data, at + 4, false);
    symbol.other = read_raw<std::uint8_t>(data, at + 5, false);
    symbol.section_index = u16(data, at + 6);
  } else {
    const std::uint64_t at = index * 16;
    symbol.name = u32(data, at);
    symbol.info = read_raw<std::uint8_t>(data, at + 12, false);
    symbol.other = read_raw<std::uint8_t>(data, at + 13, false);
    symbol.section_index = u16(data, at + 14);
  }
  return symbol;
}

}  // namespace kcheck
