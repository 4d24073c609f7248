#include "checker/elf/elf_readers.h"

#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace kcheck {
namespace {

// e_machine -> the architecture names policies use (manylinux's).
std::string machine_name(std::uint16_t machine, const ElfImage& image) {
  switch (machine) {
    case 62:
      return "x86_64";
    case 183:
      return "aarch64";
    case 3:
      return "i686";
    case 40:
      return "armv7l";
    case 21:
      return image.little_endian() ? "ppc64le" : "ppc64";
    case 22:
      return "s390x";
    case 243:
      return image.elf_class() == 64 ? "riscv64" : "riscv32";
    case 258:
      return "loongarch64";
    default:
      return "EM_" + std::to_string(machine);
  }
}

constexpr std::uint32_t kLoadSegment = 1;
constexpr std::uint32_t kStackSegment = 0x6474e551;  // PT_GNU_STACK
constexpr std::uint32_t kRelroSegment = 0x6474e552;  // PT_GNU_RELRO
constexpr std::uint32_t kInterpreterSegment = 3;     // PT_INTERP
constexpr std::uint32_t kExecutable = 1, kWritable = 2;

constexpr std::uint32_t kDynamicSection = 6;  // SHT_DYNAMIC
enum DynamicTag : std::int64_t {
  kNull = 0,
  kNeeded = 1,
  kSoname = 14,
  kRpath = 15,
  kTextrel = 22,
  kBindNow = 24,
  kRunpath = 29,
  kFlags = 30,
  kFlags1 = 0x6ffffffb,
};
constexpr std::uint64_t kFlagTextrel = 4, kFlagBindNow = 8, kFlag1Now = 1;

std::vector<std::string> split_search_path(std::string_view path) {
  std::vector<std::string> entries;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find(':', start), path.size());
    entries.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return entries;
}

// A clone without `git lfs` (or with GIT_LFS_SKIP_SMUDGE) leaves the
// pointer file of the Git LFS spec in place of the binary.
constexpr std::string_view kGitLfsPointerHeader = "version https://git-lfs.github.com/spec/v1";

bool is_git_lfs_pointer(std::span<const std::byte> bytes) {
  return bytes.size() >= kGitLfsPointerHeader.size() &&
         std::memcmp(bytes.data(), kGitLfsPointerHeader.data(), kGitLfsPointerHeader.size()) == 0;
}

}  // namespace

void read_identity(const ElfImage& image, ElfFacts& facts) {
  facts.elf_class = image.elf_class();
  facts.machine = image.machine();
  facts.machine_name = machine_name(image.machine(), image);
  facts.elf_type = image.type();
}

void read_segments(const ElfImage& image, ElfFacts& facts) {
  for (const ElfSegment& segment : image.segments()) {
    if (segment.type == kStackSegment) {
      facts.has_gnu_stack = true;
      facts.executable_stack = (segment.flags & kExecutable) != 0;
    }
    if (segment.type == kRelroSegment) facts.has_relro = true;
    if (segment.type == kInterpreterSegment) facts.program_interpreter = true;
    if (segment.type == kLoadSegment && (segment.flags & kWritable) && (segment.flags & kExecutable)) {
      facts.writable_and_executable_segment = true;
    }
  }
  // Without PT_GNU_STACK the loader gives the process an executable stack.
  if (!facts.has_gnu_stack && !image.segments().empty()) facts.executable_stack = true;
}

void read_dynamic_section(const ElfImage& image, ElfFacts& facts) {
  const ElfSection* dynamic = image.find_section_of_type(kDynamicSection);
  if (dynamic == nullptr) return;
  const ElfSection& strings = image.section_at(dynamic->link, ".dynamic");
  const auto entries = image.contents(*dynamic);
  const std::uint64_t entry_size = 2 * image.word_size();
  for (std::uint64_t offset = 0; offset + entry_size <= entries.size(); offset += entry_size) {
    const auto tag = static_cast<std::int64_t>(image.word(entries, offset));
    const std::uint64_t value = image.word(entries, offset + image.word_size());
    switch (tag) {
      case kNull:
        return;
      case kNeeded:
        facts.needed.emplace_back(image.string_at(strings, value));
        break;
      case kSoname:
        facts.soname = image.string_at(strings, value);
        break;
      case kRpath:
        facts.rpath = split_search_path(image.string_at(strings, value));
        break;
      case kRunpath:
        facts.runpath = split_search_path(image.string_at(strings, value));
        break;
      case kTextrel:
        facts.text_relocations = true;
        break;
      case kBindNow:
        facts.bind_now = true;
        break;
      case kFlags:
        if (value & kFlagTextrel) facts.text_relocations = true;
        if (value & kFlagBindNow) facts.bind_now = true;
        break;
      case kFlags1:
        if (value & kFlag1Now) facts.bind_now = true;
        break;
      default:
        break;
    }
  }
}

ElfFacts read_elf_facts(const std::filesystem::path& file, const ElfTables& tables, WorkPool* pool) {
  ElfFacts facts;
  const MappedFile mapped(file);
  if (!mapped.error().empty()) {
    facts.error = mapped.error();
    return facts;
  }
  if (is_git_lfs_pointer(mapped.bytes())) {
    facts.error = std::string(kGitLfsPointerError);
    return facts;
  }
  try {
    const ElfImage image(mapped.bytes());
    read_identity(image, facts);
    read_segments(image, facts);
    read_dynamic_section(image, facts);
    read_dynamic_symbols(image, facts);
    if (tables.torch_library_namespaces) read_torch_library_namespaces(image, mapped, facts);
    if (tables.build_leaks) read_build_leaks(image, mapped, facts);
    if (tables.read_only_data) {
      // KE012 needs the walk of .nv_fatbin too: it lists the compressed
      // entries to search.
      read_read_only_data_and_device_code(image, mapped, facts, pool);
      if (!tables.device_code) facts.device_code.reset();
    } else if (tables.device_code) {
      read_device_code(image, mapped, facts);
    }
    facts.tables_read = tables;
  } catch (const ElfFormatError& error) {
    facts.error = error.what();
  }
  return facts;
}

}  // namespace kcheck
