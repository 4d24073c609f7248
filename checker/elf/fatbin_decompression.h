#pragma once
// The compressed entries of a CUDA fat binary, decompressed so that KE012
// can search what they hold (issue #32).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "checker/elf/elf_device_code.h"

namespace kcheck {

// What kcheck decompresses of one fat binary section at most, summed over
// the sizes its entries declare in file order: this much, and no more than
// kMaxDecompressionRatio times the size of .nv_fatbin, so that a small
// hostile file cannot make it decompress gigabytes. The entries past it are
// not searched, and KE012 says so. libcublasLt.so.13 declares 1.43 GB, 10.2
// times its .nv_fatbin; libcusparse 8.6 times; libtorch_cuda 4.71 GB, 15.8
// times (its entries past 4 GiB are not searched).
inline constexpr std::uint64_t kMaxDecompressedDeviceCode = std::uint64_t{4} << 30;
inline constexpr std::uint64_t kMaxDecompressionRatio = 64;
// An LZ4 entry decompresses in one piece, into memory (each thread's, only
// as much of it touched as the block writes); a larger one is not searched.
// nvcc writes one per PTX file (--compress-mode=speed), a few MB.
inline constexpr std::uint64_t kMaxLz4DecompressedEntry = std::uint64_t{64} << 20;

// What starts a zstd frame (RFC 8878), as bytes.
inline constexpr std::string_view kZstdFrameMagic = "\x28\xb5\x2f\xfd";

// Decompresses payloads one at a time, reusing its buffers and zstd's
// context across them: one per thread.
class FatbinPayloadDecompressor {
 public:
  FatbinPayloadDecompressor();
  ~FatbinPayloadDecompressor();
  FatbinPayloadDecompressor(const FatbinPayloadDecompressor&) = delete;
  FatbinPayloadDecompressor& operator=(const FatbinPayloadDecompressor&) = delete;

  // Hands what `compressed` (the payload's bytes) decompresses to to
  // `consume`, in order, a chunk of at most a few hundred KB at a time.
  // Returns why it could not decompress the payload to exactly its declared
  // size, or "" when it did. Never writes more than the declared size, so a
  // payload that would decompress to more stops there.
  // `read_up_to`, if given, hears (zstd entries only, after each step of
  // zstd's streaming decoder) how many bytes of `compressed` have been read,
  // never to be read again: the caller may drop their pages (a large frame's
  // compressed bytes need not all stay resident). LZ4 reads its block at once.
  std::string decompress(const CompressedFatbinPayload& payload, std::span<const std::byte> compressed,
                         const std::function<void(std::string_view)>& consume,
                         const std::function<void(std::size_t)>& read_up_to = {});

 private:
  struct Zstd;
  std::string decompress_zstd(const CompressedFatbinPayload& payload, std::span<const std::byte> compressed,
                              const std::function<void(std::string_view)>& consume,
                              const std::function<void(std::size_t)>& read_up_to);
  std::string decompress_lz4(const CompressedFatbinPayload& payload, std::span<const std::byte> compressed,
                             const std::function<void(std::string_view)>& consume);

  std::unique_ptr<Zstd> zstd_;
  std::unique_ptr<char[]> chunk_;       // zstd's output, kChunkSize bytes
  std::unique_ptr<char[]> lz4_output_;  // not zeroed: pages are touched as LZ4 writes them
  std::size_t lz4_capacity_ = 0;
};

}  // namespace kcheck
