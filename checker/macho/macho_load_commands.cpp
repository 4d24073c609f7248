#include "checker/macho/macho_load_commands.h"

#include <cstring>

namespace kcheck {
namespace {

constexpr std::uint32_t kFatMagic = 0xcafebabe;  // big-endian on disk
constexpr std::uint32_t kMagic32 = 0xfeedface, kMagic64 = 0xfeedfacf;
constexpr std::uint32_t kVersionMinMacos = 0x24;  // LC_VERSION_MIN_MACOSX
constexpr std::uint32_t kBuildVersion = 0x32;     // LC_BUILD_VERSION
constexpr std::uint32_t kPlatformMacos = 1;

bool fits(std::uint64_t offset, std::uint64_t size, std::uint64_t total) {
  return offset <= total && size <= total - offset;
}

std::uint32_t read_u32(std::span<const std::byte> bytes, std::uint64_t offset, bool big_endian) {
  std::uint32_t value;
  std::memcpy(&value, bytes.data() + offset, 4);
  return big_endian ? __builtin_bswap32(value) : value;
}

// Mach-O packs versions as xxxx.yy.zz in one word.
Version unpack_version(std::uint32_t packed) { return Version({packed >> 16, (packed >> 8) & 0xff, packed & 0xff}); }

std::string arch_name(std::uint32_t cpu_type) {
  switch (cpu_type) {
    case 0x0100000c:
      return "arm64";
    case 0x01000007:
      return "x86_64";
    case 12:
      return "arm";
    case 7:
      return "i386";
    default:
      return "cpu_" + std::to_string(cpu_type);
  }
}

void read_load_commands(std::span<const std::byte> image, bool is_64_bit, MachOHeaderFacts& facts) {
  const std::uint64_t header_size = is_64_bit ? 32 : 28;
  if (image.size() < header_size) {
    facts.error = "truncated: the file is shorter than a Mach-O header";
    return;
  }
  facts.arch = arch_name(read_u32(image, 4, false));
  const std::uint32_t command_count = read_u32(image, 16, false);
  const std::uint32_t commands_size = read_u32(image, 20, false);
  if (!fits(header_size, commands_size, image.size())) {
    facts.error = "truncated: load commands (" + std::to_string(commands_size) + " bytes) end past the end of the file";
    return;
  }
  const auto commands = image.subspan(header_size, commands_size);
  std::uint64_t offset = 0;
  for (std::uint32_t index = 0; index < command_count; ++index) {
    if (!fits(offset, 8, commands.size())) {
      facts.error = "load command " + std::to_string(index) + " lies past the end of the load command area";
      return;
    }
    const std::uint32_t command = read_u32(commands, offset, false), size = read_u32(commands, offset + 4, false);
    if (size < 8 || !fits(offset, size, commands.size())) {
      facts.error = "load command " + std::to_string(index) + " has invalid size " + std::to_string(size);
      return;
    }
    if (command == kBuildVersion && size >= 16 && read_u32(commands, offset + 8, false) == kPlatformMacos) {
      facts.minimum_macos = unpack_version(read_u32(commands, offset + 12, false));
    } else if (command == kVersionMinMacos && size >= 12 && !facts.minimum_macos) {
      facts.minimum_macos = unpack_version(read_u32(commands, offset + 8, false));
    }
    offset += size;
  }
}

}  // namespace

MachOHeaderFacts read_macho_header(std::span<const std::byte> file) {
  MachOHeaderFacts facts;
  if (file.size() < 8) {
    facts.error = "truncated: the file is shorter than a Mach-O header";
    return facts;
  }
  std::span<const std::byte> image = file;
  if (read_u32(file, 0, true) == kFatMagic) {
    // Universal file: big-endian fat header, then fat_arch {cputype, subtype, offset, size, align}.
    const std::uint32_t slices = read_u32(file, 4, true);
    if (slices == 0 || !fits(8, 20, file.size())) {
      facts.error = "universal file without a readable slice";
      return facts;
    }
    const std::uint32_t offset = read_u32(file, 16, true), size = read_u32(file, 20, true);
    if (!fits(offset, size, file.size())) {
      facts.error = "truncated: the first slice (" + std::to_string(size) + " bytes at " + std::to_string(offset) +
                    ") ends past the end of the file";
      return facts;
    }
    facts.slice_offset = offset;
    image = file.subspan(offset, size);
  }
  if (image.size() < 4) {
    facts.error = "truncated: the file is shorter than a Mach-O header";
    return facts;
  }
  // Only little-endian images exist for the arches Torch ships on macOS.
  const std::uint32_t magic = read_u32(image, 0, false);
  if (magic != kMagic32 && magic != kMagic64) {
    facts.error = "not a little-endian Mach-O image (wrong magic)";
    return facts;
  }
  read_load_commands(image, magic == kMagic64, facts);
  return facts;
}

}  // namespace kcheck
