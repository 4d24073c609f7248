// The floor under KE012's string scan (issue #32): map the sections kcheck
// scans for source paths (.rodata*, the fat binaries) as kcheck maps them,
// and find every '/' in them with memchr, on THREADS threads, doing nothing
// else; then decompress each compressed entry of .nv_fatbin with libzstd or
// liblz4 called directly (the entries listed by kcheck's header walk) and
// find every '/' in what it decompresses to, the entries dealt round-robin
// to the threads. What kcheck's scan costs above this is its own; this is
// what reading those bytes from the page cache and decompressing them costs
// on this machine.
//   usage: scan_floor FILE [THREADS]   prints the bytes scanned and decompressed and the slashes found
#include <lz4.h>
#include <sys/mman.h>
#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "checker/elf/elf_device_code.h"
#include "checker/elf/elf_image.h"
#include "checker/elf/mapped_file.h"

namespace {

std::size_t count_slashes(const char* at, const char* end) {
  std::size_t found = 0;
  while ((at = static_cast<const char*>(std::memchr(at, '/', static_cast<std::size_t>(end - at))))) {
    ++found;
    ++at;
  }
  return found;
}

// Decompresses one payload into `chunk` (256 KiB, as kcheck's) a piece at a
// time, counting slashes; returns the bytes it decompressed to.
std::size_t decompress_and_count(const kcheck::CompressedFatbinPayload& payload, std::span<const std::byte> bytes,
                                 ZSTD_DCtx* context, std::vector<char>& chunk, std::string& whole,
                                 std::size_t& slashes) {
  if (payload.method == kcheck::CompressedFatbinPayload::Method::lz4) {
    whole.resize(payload.decompressed_size);
    const int written = LZ4_decompress_safe(reinterpret_cast<const char*>(bytes.data()), whole.data(),
                                            static_cast<int>(bytes.size()), static_cast<int>(whole.size()));
    if (written < 0) return 0;
    slashes += count_slashes(whole.data(), whole.data() + written);
    return static_cast<std::size_t>(written);
  }
  ZSTD_DCtx_reset(context, ZSTD_reset_session_only);
  ZSTD_inBuffer input{bytes.data(), bytes.size(), 0};
  std::size_t produced = 0;
  for (;;) {
    ZSTD_outBuffer output{chunk.data(), chunk.size(), 0};
    const std::size_t result = ZSTD_decompressStream(context, &output, &input);
    if (ZSTD_isError(result)) return produced;
    slashes += count_slashes(chunk.data(), chunk.data() + output.pos);
    produced += output.pos;
    if (result == 0 || (input.pos == input.size && output.pos < output.size)) return produced;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [THREADS]\n", argv[0]);
    return 2;
  }
  const unsigned threads = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 1;
  const kcheck::MappedFile file(argv[1]);
  if (!file.error().empty()) {
    std::fprintf(stderr, "%s\n", file.error().c_str());
    return 2;
  }
  const kcheck::ElfImage image(file.bytes());
  std::vector<std::span<const std::byte>> pieces;  // 4 MB each, as kcheck's windows
  for (const kcheck::ElfSection& section : image.sections()) {
    const std::string_view name = section.name;
    if (name != ".rodata" && !name.starts_with(".rodata.") && name != ".nv_fatbin" && name != "__nv_relfatbin" &&
        name != ".hip_fatbin")
      continue;
    const auto bytes = image.contents(section);
    for (std::size_t start = 0; start < bytes.size(); start += std::size_t{4} << 20)
      pieces.push_back(bytes.subspan(start, std::min(std::size_t{4} << 20, bytes.size() - start)));
  }
  std::vector<std::size_t> slashes(threads, 0);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      for (std::size_t i = t; i < pieces.size(); i += threads) {
        const char* at = reinterpret_cast<const char*>(pieces[i].data());
        slashes[t] += count_slashes(at, at + pieces[i].size());
        file.release(image.file_offset(pieces[i]), pieces[i].size());
      }
    });
  for (std::thread& worker : workers) worker.join();
  workers.clear();

  kcheck::CompressedFatbinPayloads compressed;
  std::span<const std::byte> fatbin;
  if (const kcheck::ElfSection* section = image.find_section(".nv_fatbin")) {
    fatbin = image.contents(*section);
    kcheck::DeviceCodeFacts ignored;
    kcheck::CudaFatbinWalk walk(fatbin, ignored);
    walk.list_compressed_payloads(compressed);
    walk.walk_until(fatbin.size());
  }
  std::vector<std::size_t> decompressed(threads, 0);
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      ZSTD_DCtx* context = ZSTD_createDCtx();
      std::vector<char> chunk(std::size_t{256} << 10);
      std::string whole;
      for (std::size_t i = t; i < compressed.listed.size(); i += threads) {
        const kcheck::CompressedFatbinPayload& payload = compressed.listed[i];
        const auto bytes = fatbin.subspan(payload.offset, payload.size);
        decompressed[t] += decompress_and_count(payload, bytes, context, chunk, whole, slashes[t]);
        file.release(image.file_offset(bytes), bytes.size());
      }
      ZSTD_freeDCtx(context);
    });
  for (std::thread& worker : workers) worker.join();

  std::size_t bytes = 0, found = 0, decompressed_bytes = 0;
  for (const auto& piece : pieces) bytes += piece.size();
  for (std::size_t count : slashes) found += count;
  for (std::size_t count : decompressed) decompressed_bytes += count;
  std::printf("%zu bytes scanned, %zu compressed entries decompressed to %zu bytes, %zu slashes\n", bytes,
              compressed.listed.size(), decompressed_bytes, found);
  return 0;
}
