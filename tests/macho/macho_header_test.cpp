// kcheck's own walk of a Mach-O header and load commands (read_macho_header,
// checker/macho/macho_load_commands.h) on images built byte by byte here:
// what it reads from a good image, and that each way a header can lie is an
// error naming it, never a read past the end.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "checker/macho/macho_load_commands.h"

namespace kcheck {
namespace {

constexpr std::uint32_t kArm64 = 0x0100000c, kX86_64 = 0x01000007;
constexpr std::uint32_t kBuildVersion = 0x32, kVersionMinMacos = 0x24, kLoadDylib = 0x0c;

class Image {
 public:
  Image& u32(std::uint32_t value, bool big_endian = false) {
    if (big_endian) value = __builtin_bswap32(value);
    const auto* bytes = reinterpret_cast<const std::byte*>(&value);
    bytes_.insert(bytes_.end(), bytes, bytes + 4);
    return *this;
  }
  std::vector<std::byte> bytes() const { return bytes_; }
  std::size_t size() const { return bytes_.size(); }

 private:
  std::vector<std::byte> bytes_;
};

// A 64-bit header: magic, cputype, cpusubtype, filetype (MH_DYLIB), ncmds, sizeofcmds, flags, reserved.
Image header64(std::uint32_t cpu, std::uint32_t commands, std::uint32_t commands_size) {
  Image image;
  image.u32(0xfeedfacf).u32(cpu).u32(0).u32(6).u32(commands).u32(commands_size).u32(0).u32(0);
  return image;
}

// LC_BUILD_VERSION {cmd, cmdsize, platform, minos, sdk, ntools}.
void build_version(Image& image, std::uint32_t platform, std::uint32_t minos) {
  image.u32(kBuildVersion).u32(24).u32(platform).u32(minos).u32(0x000e0000).u32(0);
}

MachOHeaderFacts read(const Image& image) {
  const std::vector<std::byte> bytes = image.bytes();
  return read_macho_header(bytes);
}

TEST(MachOHeader, ReadsTheArchAndTheMinimumMacosOfLcBuildVersion) {
  Image image = header64(kArm64, 2, 24 + 16);
  build_version(image, 1, 0x000b0300);          // macOS 11.3
  image.u32(kLoadDylib).u32(16).u32(0).u32(0);  // another command, skipped by its size
  MachOHeaderFacts facts = read(image);
  EXPECT_EQ(facts.error, "");
  EXPECT_EQ(facts.arch, "arm64");
  EXPECT_EQ(facts.slice_offset, 0u);
  ASSERT_TRUE(facts.minimum_macos.has_value());
  EXPECT_EQ(facts.minimum_macos->str(), "11.3.0");
}

TEST(MachOHeader, ReadsLcVersionMinMacosxWhenThereIsNoBuildVersion) {
  Image image = header64(kX86_64, 1, 16);
  image.u32(kVersionMinMacos).u32(16).u32(0x000a0f00).u32(0);  // 10.15
  MachOHeaderFacts facts = read(image);
  EXPECT_EQ(facts.error, "");
  EXPECT_EQ(facts.arch, "x86_64");
  ASSERT_TRUE(facts.minimum_macos.has_value());
  EXPECT_EQ(facts.minimum_macos->str(), "10.15.0");
}

TEST(MachOHeader, ABuildVersionForAnotherPlatformSetsNoMinimum) {
  Image image = header64(kArm64, 1, 24);
  build_version(image, 2, 0x00110000);  // platform 2 is iOS
  MachOHeaderFacts facts = read(image);
  EXPECT_EQ(facts.error, "");
  EXPECT_FALSE(facts.minimum_macos.has_value());
}

TEST(MachOHeader, AnUnknownCpuIsNamedByNumber) { EXPECT_EQ(read(header64(0x01000099, 0, 0)).arch, "cpu_16777369"); }

TEST(MachOHeader, AUniversalFileIsReadFromItsFirstSlice) {
  Image thin = header64(kArm64, 1, 24);
  build_version(thin, 1, 0x000c0000);  // 12.0
  Image fat;
  const std::uint32_t offset = 4096;
  fat.u32(0xcafebabe, true).u32(1, true);                                                     // fat header
  fat.u32(kArm64, true).u32(0, true).u32(offset, true).u32(thin.size(), true).u32(12, true);  // fat_arch
  while (fat.size() < offset) fat.u32(0);
  std::vector<std::byte> bytes = fat.bytes();
  const std::vector<std::byte> slice = thin.bytes();
  bytes.insert(bytes.end(), slice.begin(), slice.end());
  MachOHeaderFacts facts = read_macho_header(bytes);
  EXPECT_EQ(facts.error, "");
  EXPECT_EQ(facts.slice_offset, offset);
  EXPECT_EQ(facts.arch, "arm64");
  ASSERT_TRUE(facts.minimum_macos.has_value());
  EXPECT_EQ(facts.minimum_macos->str(), "12.0.0");
}

TEST(MachOHeader, EachLyingHeaderIsAnErrorNamingTheProblem) {
  struct Case {
    const char* what;
    std::vector<std::byte> bytes;
    const char* error;
  };
  Image short_file;
  short_file.u32(0xfeedfacf);
  Image wrong_magic = header64(kArm64, 0, 0);
  std::vector<std::byte> big_endian_magic = wrong_magic.bytes();
  std::swap(big_endian_magic[0], big_endian_magic[3]);
  std::swap(big_endian_magic[1], big_endian_magic[2]);
  Image commands_past_end = header64(kArm64, 1, 4096);
  Image too_many_commands = header64(kArm64, 3, 24);
  build_version(too_many_commands, 1, 0x000b0000);
  Image zero_size = header64(kArm64, 1, 16);
  zero_size.u32(kLoadDylib).u32(0).u32(0).u32(0);
  Image oversized = header64(kArm64, 1, 16);
  oversized.u32(kLoadDylib).u32(0xfffffff8).u32(0).u32(0);
  Image no_slice;
  no_slice.u32(0xcafebabe, true).u32(0, true);
  Image slice_past_end;
  slice_past_end.u32(0xcafebabe, true)
      .u32(1, true)
      .u32(kArm64, true)
      .u32(0, true)
      .u32(64, true)
      .u32(1 << 20, true)
      .u32(12, true);
  const Case cases[] = {
      {"four bytes", short_file.bytes(), "truncated: the file is shorter than a Mach-O header"},
      {"a big-endian magic", big_endian_magic, "not a little-endian Mach-O image (wrong magic)"},
      {"sizeofcmds past the end", commands_past_end.bytes(),
       "truncated: load commands (4096 bytes) end past the end of the file"},
      {"ncmds above what sizeofcmds holds", too_many_commands.bytes(),
       "load command 1 lies past the end of the load command area"},
      {"a command of size 0", zero_size.bytes(), "load command 0 has invalid size 0"},
      {"a command larger than the area", oversized.bytes(), "load command 0 has invalid size 4294967288"},
      {"a universal file of no slice", no_slice.bytes(), "universal file without a readable slice"},
      {"a slice past the end", slice_past_end.bytes(),
       "truncated: the first slice (1048576 bytes at 64) ends past the end of the file"},
  };
  for (const Case& c : cases) EXPECT_EQ(read_macho_header(c.bytes).error, c.error) << c.what;
}

TEST(MachOHeader, EveryTruncationOfAGoodImageIsAnErrorOrAPrefixItCanRead) {
  Image image = header64(kArm64, 2, 24 + 16);
  build_version(image, 1, 0x000b0300);
  image.u32(kLoadDylib).u32(16).u32(0).u32(0);
  const std::vector<std::byte> whole = image.bytes();
  for (std::size_t length = 0; length < whole.size(); ++length) {
    const std::vector<std::byte> prefix(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(length));
    EXPECT_FALSE(read_macho_header(prefix).error.empty()) << "a " << length << "-byte prefix was accepted";
  }
}

}  // namespace
}  // namespace kcheck
