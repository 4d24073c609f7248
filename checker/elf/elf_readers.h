#pragma once
// The parts of read_elf_facts(), one per kind of table. Each reads only the
// sections it needs from the validated image and throws ElfFormatError when
// a table is malformed.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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
// KE012's search for the builder paths of source files in text that arrives
// in chunks (what a compressed payload decompresses to): the run of path
// characters that ends a chunk is carried into the next, so a path split
// between two is found whole (up to 64 KiB, as between the pieces of a
// section), and the paths found are those of the whole text at once.
class ChunkedSourcePathScan {
 public:
  explicit ChunkedSourcePathScan(std::vector<std::string>& paths) : paths_(paths) {}
  void add(std::string_view chunk);
  // Scans what is carried: the end of the text.
  void finish();

 private:
  std::vector<std::string>& paths_;
  std::string carry_;
};

// Decompresses the compressed entries of a CUDA fat binary (`section`,
// .nv_fatbin or __nv_relfatbin) that a walk listed and adds the source paths
// they hold to device_code_build_paths, after those already there; counts
// those it could not search (ElfFacts::unsearched_device_code_entries).
// Pages are released as zstd reads them, a quarter MiB at a time, and the
// rest (with those the kernel mapped beside them) when a batch of entries ends.
void read_compressed_device_code_paths(const ElfImage& image, const MappedFile& file,
                                       std::span<const std::byte> section, std::string_view section_name,
                                       const CompressedFatbinPayloads& compressed, ElfFacts& facts, WorkPool* pool);
// Counts the compressed clang offload bundles of .hip_fatbin among the
// device code KE012 did not search (ElfFacts::unsearched_device_code_entries).
void count_compressed_hip_bundles(const ElfImage& image, ElfFacts& facts);
// Both, with the headers of .nv_fatbin walked inside the scan, a piece at a
// time before its pages are released: each page is mapped once (issue #32);
// then its compressed entries decompressed and searched
// (read_compressed_device_code_paths).
void read_read_only_data_and_device_code(const ElfImage& image, const MappedFile& file, ElfFacts& facts,
                                         WorkPool* pool);

}  // namespace kcheck
