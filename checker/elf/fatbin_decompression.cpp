#include "checker/elf/fatbin_decompression.h"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <climits>

namespace kcheck {
namespace {

// zstd's output, handed on a chunk at a time: the decompressor holds one
// chunk, whatever an entry decompresses to.
constexpr std::size_t kChunkSize = std::size_t{256} << 10;

std::string declared(const CompressedFatbinPayload& payload) {
  return "its header declares " + std::to_string(payload.decompressed_size) + " bytes";
}

}  // namespace

struct FatbinPayloadDecompressor::Zstd {
  Zstd() : context(ZSTD_createDCtx()) {}
  ~Zstd() { ZSTD_freeDCtx(context); }
  Zstd(const Zstd&) = delete;
  Zstd& operator=(const Zstd&) = delete;
  ZSTD_DCtx* context;
};

FatbinPayloadDecompressor::FatbinPayloadDecompressor()
    : zstd_(std::make_unique<Zstd>()), chunk_(std::make_unique<char[]>(kChunkSize)) {}

FatbinPayloadDecompressor::~FatbinPayloadDecompressor() = default;

std::string FatbinPayloadDecompressor::decompress(const CompressedFatbinPayload& payload,
                                                  std::span<const std::byte> compressed,
                                                  const std::function<void(std::string_view)>& consume,
                                                  const std::function<void(std::size_t)>& read_up_to) {
  switch (payload.method) {
    case CompressedFatbinPayload::Method::zstd:
      return decompress_zstd(payload, compressed, consume, read_up_to);
    case CompressedFatbinPayload::Method::lz4:
      return decompress_lz4(payload, compressed, consume);
    case CompressedFatbinPayload::Method::unknown:
      break;
  }
  return "its header flags both LZ4 and zstd compression";
}

std::string FatbinPayloadDecompressor::decompress_zstd(const CompressedFatbinPayload& payload,
                                                       std::span<const std::byte> compressed,
                                                       const std::function<void(std::string_view)>& consume,
                                                       const std::function<void(std::size_t)>& read_up_to) {
  if (zstd_->context == nullptr) return "zstd could not allocate its context";
  ZSTD_DCtx_reset(zstd_->context, ZSTD_reset_session_only);
  ZSTD_inBuffer input{compressed.data(), compressed.size(), 0};
  std::uint64_t produced = 0;
  for (;;) {
    // Room for one byte past the declared size at most: a payload that
    // would decompress to more is stopped there, not followed.
    const std::uint64_t remaining = payload.decompressed_size - produced;
    const std::size_t room = remaining >= kChunkSize ? kChunkSize : static_cast<std::size_t>(remaining) + 1;
    ZSTD_outBuffer output{chunk_.get(), room, 0};
    const std::size_t result = ZSTD_decompressStream(zstd_->context, &output, &input);
    if (ZSTD_isError(result)) return std::string("not a valid zstd frame (") + ZSTD_getErrorName(result) + ")";
    produced += output.pos;
    if (produced > payload.decompressed_size) return "decompresses to more than " + declared(payload);
    if (output.pos > 0) consume({chunk_.get(), output.pos});
    // Read, never to be read again: a part block zstd has read is copied into its own buffer.
    if (read_up_to) read_up_to(input.pos);
    if (result == 0) {  // the frame is complete: all that may follow is padding
      const auto rest = compressed.subspan(input.pos);
      if (std::any_of(rest.begin(), rest.end(), [](std::byte b) { return b != std::byte{0}; }))
        return "holds " + std::to_string(rest.size()) + " bytes after its zstd frame, which kcheck does not read";
      break;
    }
    if (input.pos == input.size && output.pos < output.size)
      return "its zstd frame ends early, after " + std::to_string(produced) + " bytes";
  }
  if (produced != payload.decompressed_size)
    return "decompresses to " + std::to_string(produced) + " bytes, but " + declared(payload);
  return "";
}

std::string FatbinPayloadDecompressor::decompress_lz4(const CompressedFatbinPayload& payload,
                                                      std::span<const std::byte> compressed,
                                                      const std::function<void(std::string_view)>& consume) {
  if (payload.decompressed_size > kMaxLz4DecompressedEntry)
    return declared(payload) + ", more than the " + std::to_string(kMaxLz4DecompressedEntry >> 20) +
           " MiB kcheck decompresses of one LZ4 entry";
  if (compressed.size() > static_cast<std::size_t>(INT_MAX)) return "an LZ4 payload of more than 2 GiB";
  const auto size = static_cast<std::size_t>(payload.decompressed_size);
  if (size > lz4_capacity_) {
    lz4_output_.reset(new char[size]);  // not zeroed, unlike a std::string's resize
    lz4_capacity_ = size;
  }
  const int written = LZ4_decompress_safe(reinterpret_cast<const char*>(compressed.data()), lz4_output_.get(),
                                          static_cast<int>(compressed.size()), static_cast<int>(size));
  if (written < 0) return "not a valid LZ4 block, or it decompresses to more than " + declared(payload);
  if (static_cast<std::uint64_t>(written) != payload.decompressed_size)
    return "decompresses to " + std::to_string(written) + " bytes, but " + declared(payload);
  consume({lz4_output_.get(), size});
  return "";
}

}  // namespace kcheck
