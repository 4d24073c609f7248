// FatbinPayloadDecompressor on payloads compressed here with zstd and LZ4
// (the libraries kcheck links): what they decompress to arrives whole, in
// order and in bounded chunks; a payload that is not what its header says is
// refused with the reason, never followed past its declared size.
#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "checker/elf/fatbin_decompression.h"

namespace kcheck::testing {
namespace {

// Text with paths every few KB, as PTX with line tables holds: compressible,
// and long enough to need several of the decompressor's chunks.
std::string line_table_text(std::size_t size) {
  std::mt19937 random(7);
  std::string text;
  while (text.size() < size) {
    text += ".loc 1 " + std::to_string(random() % 1000) + " 0\n";
    if (random() % 64 == 0) text += ".file 2 \"/home/ci/k/kernel_" + std::to_string(random() % 50) + ".cu\"\n";
  }
  text.resize(size);
  return text;
}

std::string zstd_frame(const std::string& text) {
  std::string frame(ZSTD_compressBound(text.size()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), text.data(), text.size(), 3));
  return frame;
}

std::string lz4_block(const std::string& text) {
  std::string block(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(text.size()))), '\0');
  block.resize(static_cast<std::size_t>(
      LZ4_compress_default(text.data(), block.data(), static_cast<int>(text.size()), static_cast<int>(block.size()))));
  return block;
}

std::span<const std::byte> bytes_of(const std::string& text) {
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

struct Decompressed {
  std::string text;
  std::vector<std::size_t> chunk_sizes;
  std::string why;
};

Decompressed decompress(FatbinPayloadDecompressor& decompressor, CompressedFatbinPayload::Method method,
                        const std::string& payload, std::uint64_t declared) {
  Decompressed result;
  result.why =
      decompressor.decompress({0, payload.size(), declared, method}, bytes_of(payload), [&](std::string_view chunk) {
        result.text += chunk;
        result.chunk_sizes.push_back(chunk.size());
      });
  return result;
}

TEST(FatbinDecompression, ZstdArrivesWholeInBoundedChunks) {
  const std::string text = line_table_text(1'000'000);
  FatbinPayloadDecompressor decompressor;
  for (int round = 0; round < 2; ++round) {  // the context is reused
    const Decompressed result =
        decompress(decompressor, CompressedFatbinPayload::Method::zstd, zstd_frame(text), text.size());
    EXPECT_EQ(result.why, "");
    EXPECT_TRUE(result.text == text);
    ASSERT_GE(result.chunk_sizes.size(), 4u);
    EXPECT_EQ(result.chunk_sizes.front(), std::size_t{256} << 10) << "the first chunk fills the buffer";
    for (const std::size_t size : result.chunk_sizes) EXPECT_LE(size, std::size_t{256} << 10);
  }
}

// What it says has been read is never read again: the caller may drop those
// pages (KE012 does, so a large frame's compressed bytes need not all stay
// resident). Here they are overwritten as soon as it says so, and the text
// still arrives whole; it says so several times, as it goes, up to the end.
TEST(FatbinDecompression, ZstdSaysAsItGoesWhichBytesItHasRead) {
  const std::string text = line_table_text(3'000'000);
  std::string frame = zstd_frame(text);
  FatbinPayloadDecompressor decompressor;
  std::vector<std::size_t> read;
  std::string decompressed;
  const std::string why = decompressor.decompress(
      {0, frame.size(), text.size(), CompressedFatbinPayload::Method::zstd}, bytes_of(frame),
      [&](std::string_view chunk) { decompressed += chunk; },
      [&](std::size_t up_to) {
        ASSERT_LE(up_to, frame.size());
        std::fill(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(up_to), '\xAA');
        read.push_back(up_to);
      });
  EXPECT_EQ(why, "");
  EXPECT_TRUE(decompressed == text);
  ASSERT_GE(read.size(), 4u);
  EXPECT_TRUE(std::is_sorted(read.begin(), read.end()));
  EXPECT_LT(read[read.size() / 2], frame.size()) << "halfway through, not all of it was read";
  EXPECT_EQ(read.back(), frame.size());
}

TEST(FatbinDecompression, Lz4ArrivesWhole) {
  const std::string text = line_table_text(300'000);
  FatbinPayloadDecompressor decompressor;
  const Decompressed result =
      decompress(decompressor, CompressedFatbinPayload::Method::lz4, lz4_block(text), text.size());
  EXPECT_EQ(result.why, "");
  EXPECT_TRUE(result.text == text);
}

TEST(FatbinDecompression, ZstdNotAsDeclaredIsRefusedWithTheReason) {
  const std::string text = line_table_text(600'000);
  const std::string frame = zstd_frame(text);
  FatbinPayloadDecompressor decompressor;
  const auto zstd = CompressedFatbinPayload::Method::zstd;

  const Decompressed more = decompress(decompressor, zstd, frame, 1000);
  EXPECT_EQ(more.why, "decompresses to more than its header declares 1000 bytes");
  EXPECT_LE(more.text.size(), 1001u) << "stopped one byte past the declared size";

  const Decompressed fewer = decompress(decompressor, zstd, frame, text.size() + 1);
  EXPECT_EQ(fewer.why, "decompresses to 600000 bytes, but its header declares 600001 bytes");

  const Decompressed truncated = decompress(decompressor, zstd, frame.substr(0, frame.size() / 2), text.size());
  EXPECT_NE(truncated.why.find("its zstd frame ends early"), std::string::npos) << truncated.why;

  const Decompressed garbage = decompress(decompressor, zstd, "GARBAGE!", 64);
  EXPECT_NE(garbage.why.find("not a valid zstd frame"), std::string::npos) << garbage.why;
  EXPECT_EQ(garbage.text, "");

  // After all that, the context still decompresses a good frame.
  EXPECT_EQ(decompress(decompressor, zstd, frame, text.size()).why, "");
}

TEST(FatbinDecompression, Lz4NotAsDeclaredIsRefusedWithTheReason) {
  const std::string text = line_table_text(100'000);
  const std::string block = lz4_block(text);
  FatbinPayloadDecompressor decompressor;
  const auto lz4 = CompressedFatbinPayload::Method::lz4;

  EXPECT_NE(decompress(decompressor, lz4, block, 1000).why.find("not a valid LZ4 block"), std::string::npos);
  EXPECT_EQ(decompress(decompressor, lz4, block, text.size() + 8).why,
            "decompresses to 100000 bytes, but its header declares 100008 bytes");
  EXPECT_NE(decompress(decompressor, lz4, block.substr(0, block.size() / 2), text.size()).why.find("not a valid"),
            std::string::npos);
  // Declared past the bound: refused before anything is allocated.
  const Decompressed huge = decompress(decompressor, lz4, block, kMaxLz4DecompressedEntry + 1);
  EXPECT_NE(huge.why.find("more than the 64 MiB kcheck decompresses of one LZ4 entry"), std::string::npos) << huge.why;
  EXPECT_EQ(huge.text, "");
}

TEST(FatbinDecompression, BothFlagsAreNotGuessedBetween) {
  FatbinPayloadDecompressor decompressor;
  const std::string frame = zstd_frame("abc");
  EXPECT_EQ(decompress(decompressor, CompressedFatbinPayload::Method::unknown, frame, 3).why,
            "its header flags both LZ4 and zstd compression");
}

}  // namespace
}  // namespace kcheck::testing
