// The floor under KE012's string scan (issue #32): map the sections kcheck
// scans for source paths (.rodata*, the fat binaries) as kcheck maps them,
// and find every '/' in them with memchr, on THREADS threads, doing nothing
// else. What kcheck's scan costs above this is its own; this is what reading
// those bytes from the page cache costs on this machine.
//   usage: scan_floor FILE [THREADS]   prints the bytes scanned and the slashes found
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "checker/elf/elf_image.h"
#include "checker/elf/mapped_file.h"

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
        const char* end = at + pieces[i].size();
        while ((at = static_cast<const char*>(std::memchr(at, '/', static_cast<std::size_t>(end - at))))) {
          ++slashes[t];
          ++at;
        }
        file.release(image.file_offset(pieces[i]), pieces[i].size());
      }
    });
  for (std::thread& worker : workers) worker.join();
  std::size_t bytes = 0, found = 0;
  for (const auto& piece : pieces) bytes += piece.size();
  for (std::size_t count : slashes) found += count;
  std::printf("%zu bytes scanned, %zu slashes\n", bytes, found);
  return 0;
}
