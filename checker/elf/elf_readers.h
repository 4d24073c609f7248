#pragma once
// The parts of read_elf_facts(), one per kind of table. Each reads only the
// sections it needs from the validated image and throws ElfFormatError when
// a table is malformed.
#include "checker/kinds/elf_facts.h"
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
void read_read_only_data_build_paths(const ElfImage& image, const MappedFile& file, ElfFacts& facts,
                                     WorkPool* pool = nullptr);
void read_device_code(const ElfImage& image, const MappedFile& file, ElfFacts& facts);

}  // namespace kcheck
