#pragma once
// The parts of read_elf_facts(), one per kind of table. Each reads only the
// sections it needs from the validated image and throws ElfFormatError when
// a table is malformed.
#include <cstdint>
#include <mutex>
#include <span>

#include "checker/kinds/elf_facts.h"
#include "checker/elf/elf_device_code.h"
#include "checker/elf/elf_image.h"
#include "checker/elf/mapped_file.h"

namespace kcheck {

void read_identity(const ElfImage& image, ElfFacts& facts);
void read_segments(const ElfImage& image, ElfFacts& facts);
void read_dynamic_section(const ElfImage& image, ElfFacts& facts);
void read_dynamic_symbols(const ElfImage& image, ElfFacts& facts);
// Long scans release the pages they read through `file`.
void read_torch_library_namespaces(const ElfImage& image, const MappedFile& file, ElfFacts& facts);
void read_build_leaks(const ElfImage& image, const MappedFile& file, ElfFacts& facts);

// Told of each piece of read_read_only_data_build_paths's scan once it has
// been scanned, on the thread that scanned it, while its pages are still
// resident; they are released (dropped from the resident set, still
// readable: MappedFile::release) when scanned() returns.
class ScanPieceVisitor {
 public:
  virtual ~ScanPieceVisitor() = default;
  virtual void scanned(std::uint64_t file_offset, std::uint64_t size) = 0;
};

// The scan starts its pieces in file order, one per thread of `pool` at a
// time (each thread holds one piece mapped).
void read_read_only_data_build_paths(const ElfImage& image, const MappedFile& file, ElfFacts& facts,
                                     WorkPool* pool = nullptr, ScanPieceVisitor* visitor = nullptr);
void read_device_code(const ElfImage& image, const MappedFile& file, ElfFacts& facts);
// Both, with the headers of .nv_fatbin walked inside the scan, a piece at a
// time before its pages are released: each page is mapped once (issue #32).
void read_read_only_data_and_device_code(const ElfImage& image, const MappedFile& file, ElfFacts& facts,
                                         WorkPool* pool);

// The walk of .nv_fatbin's headers (KE014) advanced by the threads of
// KE012's scan: the thread that has scanned a piece walks on to its end
// before the piece's pages are released, so no piece is released before the
// walk has passed it and no page is mapped twice (libcublasLt: 5,700 entries
// over 139 MB). The walk is sequential (each header says where the next
// starts), so that thread may first walk through pieces before its own:
// those the other threads are scanning, mapped until they are released,
// since the scan starts its pieces in file order (in another order it would
// map the headers of pieces not yet started ahead of their scan).
class FatbinWalkAlongScan final : public ScanPieceVisitor {
 public:
  FatbinWalkAlongScan(const ElfImage& image, std::span<const std::byte> section, DeviceCodeFacts& device_code);

  void scanned(std::uint64_t file_offset, std::uint64_t size) override;
  // Walks what no piece reached (nothing, when every piece of the section
  // was scanned) and says how many of the section's bytes that was. The
  // archs are in `device_code` once this is destroyed.
  std::uint64_t finish();

 private:
  const std::uint64_t start_, size_;  // of the section in the file
  std::mutex mutex_;
  CudaFatbinWalk walk_;  // under mutex_
};

}  // namespace kcheck
