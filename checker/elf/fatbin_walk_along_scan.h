#pragma once
// KE014's walk of a CUDA fat binary inside KE012's pieced scan (issue #32).
#include <cstdint>
#include <mutex>
#include <span>

#include "checker/kinds/elf_facts.h"
#include "checker/elf/elf_device_code.h"
#include "checker/elf/elf_image.h"
#include "checker/elf/elf_readers.h"

namespace kcheck {

// The walk of .nv_fatbin's headers (KE014) advanced by the threads of
// KE012's scan: the thread that has scanned a piece walks on to its end
// before the piece's pages are released, so no piece is released before the
// walk has passed it and no page is mapped twice (libcublasLt: 5,700 entries
// over 139 MB). The walk is sequential (each header says where the next
// starts), so that thread may first walk through pieces before its own:
// those the other threads are scanning, still resident, since the scan
// starts its pieces in file order (in another order it would fault in the
// headers of pieces not yet started ahead of their scan; the facts are the
// same in any order, as a released page stays readable).
class FatbinWalkAlongScan final : public ScanPieceVisitor {
 public:
  // Lists the compressed payloads it passes in `compressed`.
  FatbinWalkAlongScan(const ElfImage& image, std::span<const std::byte> section, DeviceCodeFacts& device_code,
                      CompressedFatbinPayloads& compressed);

  void scanned(std::uint64_t file_offset, std::uint64_t size) override;
  // Walks what no piece reached (nothing, when every piece of the section
  // was scanned) and says how many of the section's bytes that was. The
  // archs are in `device_code` once this is destroyed.
  std::uint64_t finish();
  // Where a malformed header stopped the walk, once finished.
  std::uint64_t stopped_at() {
    const std::lock_guard lock(mutex_);
    return walk_.stopped_at();
  }

 private:
  const std::uint64_t start_, size_;  // of the section in the file
  std::mutex mutex_;
  CudaFatbinWalk walk_;  // under mutex_
};

}  // namespace kcheck
