// KE014's facts from a module's fat binaries: alone, or with the headers of
// .nv_fatbin walked inside KE012's scan of the same bytes, listing the
// compressed entries KE012 then decompresses (issue #32).
#include <algorithm>

#include "checker/elf/elf_device_code.h"
#include "checker/elf/elf_readers.h"
#include "checker/elf/fatbin_decompression.h"
#include "checker/elf/fatbin_walk_along_scan.h"

namespace kcheck {
namespace {

// A large library embeds hundreds of MB of cubins whose headers lie a page
// or more apart; the walk alone drops what it read every few MB to keep RSS
// flat.
constexpr std::uint64_t kReleaseStep = 4u << 20;

// A malformed header stops the walk that lists a fat binary's compressed
// entries: what follows was scanned as raw bytes only (KE012 says so).
void note_walk_stopped(std::span<const std::byte> section, std::string_view name, std::uint64_t stopped_at,
                       const std::string& error, ElfFacts& facts) {
  if (stopped_at >= section.size() || !facts.device_code_walk_stopped.empty()) return;
  facts.device_code_walk_stopped =
      "its headers could not be walked to the end (" + error + "), so no entry past that point was decompressed";
  facts.device_code_walk_stopped_section = name;
  const std::string_view rest(reinterpret_cast<const char*>(section.data()) + stopped_at, section.size() - stopped_at);
  facts.device_code_walk_stopped_before_zstd = rest.find(kZstdFrameMagic) != std::string_view::npos;
}

// __nv_relfatbin (nvcc -rdc): the relocatable cubins and PTX given to
// nvlink, in .nv_fatbin's format and compressed the same way (nvcc 13
// compresses them all by default). KE014 lists the linked device code of
// .nv_fatbin; KE012 searches both.
void read_relocatable_device_code_paths(const ElfImage& image, const MappedFile& file, ElfFacts& facts,
                                        WorkPool* pool) {
  const ElfSection* relocatable = image.find_section("__nv_relfatbin");
  if (relocatable == nullptr) return;
  const auto section = image.contents(*relocatable);
  DeviceCodeFacts walked;  // its archs are not KE014's
  CompressedFatbinPayloads compressed;
  std::uint64_t stopped_at = 0;
  {
    CudaFatbinWalk walk(section, walked, "__nv_relfatbin");
    walk.list_compressed_payloads(compressed);
    walk.walk_until(section.size());
    stopped_at = walk.stopped_at();
  }
  read_compressed_device_code_paths(image, file, section, "__nv_relfatbin", compressed, facts, pool);
  note_walk_stopped(section, "__nv_relfatbin", stopped_at, walked.error, facts);
}

}  // namespace

FatbinWalkAlongScan::FatbinWalkAlongScan(const ElfImage& image, std::span<const std::byte> section,
                                         DeviceCodeFacts& device_code, CompressedFatbinPayloads& compressed)
    : start_(section.empty() ? 0 : image.file_offset(section)), size_(section.size()), walk_(section, device_code) {
  walk_.list_compressed_payloads(compressed);
}

void FatbinWalkAlongScan::scanned(std::uint64_t file_offset, std::uint64_t size) {
  if (file_offset >= start_ + size_ || file_offset + size <= start_) return;  // another section's piece
  const std::lock_guard lock(mutex_);
  walk_.walk_until(file_offset + size - start_);
}

std::uint64_t FatbinWalkAlongScan::finish() {
  const std::lock_guard lock(mutex_);
  const std::uint64_t left = walk_.done() ? 0 : size_ - std::min(walk_.offset(), size_);
  walk_.walk_until(size_);
  return left;
}

void read_device_code(const ElfImage& image, const MappedFile& file, ElfFacts& facts) {
  const ElfSection* cuda = image.find_section(".nv_fatbin");
  const ElfSection* hip = image.find_section(".hip_fatbin");
  if (cuda == nullptr && hip == nullptr) return;
  DeviceCodeFacts& device_code = facts.device_code.emplace();
  if (cuda != nullptr) {
    const auto section = image.contents(*cuda);
    const std::uint64_t start = section.empty() ? 0 : image.file_offset(section);
    CudaFatbinWalk walk(section, device_code);
    for (std::uint64_t released = 0; !walk.done(); released = walk.offset()) {
      walk.walk_until(walk.offset() + kReleaseStep);
      file.release(start + released, walk.offset() - released);
    }
  }
  if (hip != nullptr) read_hip_fatbin(image.contents(*hip), device_code);
}

void read_read_only_data_and_device_code(const ElfImage& image, const MappedFile& file, ElfFacts& facts,
                                         WorkPool* pool) {
  if (const ElfSection* cuda = image.find_section(".nv_fatbin")) {
    DeviceCodeFacts& device_code = facts.device_code.emplace();
    const auto section = image.contents(*cuda);
    CompressedFatbinPayloads compressed;
    std::uint64_t stopped_at = 0;
    {
      FatbinWalkAlongScan walk(image, section, device_code, compressed);
      read_read_only_data_build_paths(image, file, facts, pool, &walk);
      walk.finish();
      stopped_at = walk.stopped_at();
    }  // the archs are written here
    read_compressed_device_code_paths(image, file, section, ".nv_fatbin", compressed, facts, pool);
    note_walk_stopped(section, ".nv_fatbin", stopped_at, device_code.error, facts);
    if (const ElfSection* hip = image.find_section(".hip_fatbin")) read_hip_fatbin(image.contents(*hip), device_code);
  } else {
    read_read_only_data_build_paths(image, file, facts, pool);
    read_device_code(image, file, facts);
  }
  read_relocatable_device_code_paths(image, file, facts, pool);
  count_compressed_hip_bundles(image, facts);
}

}  // namespace kcheck
