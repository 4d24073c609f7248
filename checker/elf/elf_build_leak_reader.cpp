#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "checker/support/name_shapes.h"
#include "checker/elf/elf_readers.h"

namespace kcheck {
namespace {

// Where builders keep sources and toolchains; a path under one of these in a
// shipped module tells a reader about the machine that built it.
constexpr std::array<std::string_view, 9> kBuilderPathPrefixes = {
    "/home/", "/nix/store/", "/root/", "/Users/", "/tmp/", "/build/", "/builds/", "/workspace/", "/__w/",
};

// Sections whose strings name build directories and source files.
constexpr std::array<std::string_view, 4> kPathCarryingSections = {".comment", ".debug_str", ".debug_line_str",
                                                                   ".debug_line"};

bool is_path_char(char c) { return c > ' ' && c < 0x7f && c != '"' && c != '\''; }

void add_leak(ElfFacts& facts, std::string_view path) {
  if (facts.leaked_build_paths.size() >= ElfFacts::kMaxLeakedBuildPaths) return;
  if (std::find(facts.leaked_build_paths.begin(), facts.leaked_build_paths.end(), path) !=
      facts.leaked_build_paths.end())
    return;
  facts.leaked_build_paths.emplace_back(path);
}

void scan_for_builder_paths(std::string_view text, ElfFacts& facts) {
  for (const std::string_view prefix : kBuilderPathPrefixes) {
    for (std::size_t at = text.find(prefix); at != std::string_view::npos; at = text.find(prefix, at + 1)) {
      // A path starts a string, or follows a separator as in "-I/home/x".
      if (at > 0 && is_path_char(text[at - 1]) && text[at - 1] != '=' && text[at - 1] != 'I') continue;
      std::size_t end = at;
      while (end < text.size() && is_path_char(text[end])) ++end;
      add_leak(facts, text.substr(at, end - at));
      if (facts.leaked_build_paths.size() >= ElfFacts::kMaxLeakedBuildPaths) return;
      at = end;
    }
  }
}

bool is_debug_section(std::string_view name) { return name.starts_with(".debug_") || name.starts_with(".zdebug_"); }

bool is_read_only_data_section(std::string_view name) { return name == ".rodata" || name.starts_with(".rodata."); }

// Where CUDA and HIP builds embed their device code (cubins, PTX, code objects).
bool is_device_code_section(std::string_view name) {
  return name == ".nv_fatbin" || name == "__nv_relfatbin" || name == ".hip_fatbin";
}

// What __FILE__ expands to: a source or header file (names_compiled_source).
// Read-only data holds many other absolute paths a kernel uses at run time
// ("/tmp/", "/home/" as a default directory); only a source file's path tells
// of the builder.
// The builder paths of source files among the strings of read-only data,
// in one pass over the bytes. A path starts a string or follows a character
// that cannot be part of it ("at /tmp/k.cu" from "at " __FILE__).
void scan_strings_for_source_paths(std::string_view data, std::vector<std::string>& paths) {
  std::size_t start = 0;
  while (start < data.size() && paths.size() < ElfFacts::kMaxLeakedSourcePaths) {
    const std::size_t slash = data.find('/', start);
    if (slash == std::string_view::npos) return;
    std::size_t end = slash;
    while (end < data.size() && is_path_char(data[end])) ++end;
    const bool starts_path = slash == 0 || !is_path_char(data[slash - 1]);
    const std::string_view candidate = data.substr(slash, end - slash);
    const bool builder_path = std::any_of(kBuilderPathPrefixes.begin(), kBuilderPathPrefixes.end(),
                                          [&](std::string_view prefix) { return candidate.starts_with(prefix); });
    if (starts_path && builder_path && names_compiled_source(candidate) &&
        std::find(paths.begin(), paths.end(), candidate) == paths.end()) {
      paths.emplace_back(candidate);
    }
    start = std::max(end, slash + 1);
  }
}

// Calls scan(text) over a section in pieces of about kScanWindow bytes,
// each ending just after a byte that cannot be part of a path (so a path is
// never split and a piece never starts inside one, unless a run of path
// characters exceeds kLongestString), and drops each piece's pages from the
// resident set once scanned: a 46 MB .rodata costs a few MB of memory.
constexpr std::size_t kScanWindow = std::size_t{4} << 20;
constexpr std::size_t kLongestString = std::size_t{64} << 10;

template <typename Scan>
void scan_in_windows(const ElfImage& image, const MappedFile& file, std::span<const std::byte> bytes, Scan scan) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const std::uint64_t base = image.file_offset(bytes);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(start + kScanWindow, text.size());
    if (end < text.size()) {
      const std::string_view ahead = text.substr(end, kLongestString);
      const auto separator = std::find_if(ahead.begin(), ahead.end(), [](char c) { return !is_path_char(c); });
      end += separator == ahead.end() ? ahead.size() : static_cast<std::size_t>(separator - ahead.begin()) + 1;
    }
    scan(text.substr(start, end - start));
    file.release(base + start, end - start);
    start = end;
  }
}

}  // namespace

void read_build_leaks(const ElfImage& image, const MappedFile& file, ElfFacts& facts) {
  for (const ElfSection& section : image.sections()) {
    if (is_debug_section(section.name)) {
      facts.has_debug_sections = true;
      facts.debug_section_names.emplace_back(section.name);
    }
    if (std::find(kPathCarryingSections.begin(), kPathCarryingSections.end(), section.name) ==
        kPathCarryingSections.end())
      continue;
    // Whole: the paths are collected prefix by prefix over the section, and
    // which 16 are kept (and the first, the finding's place) must not
    // depend on a window size. .comment and the DWARF string tables of a
    // released library are small.
    const auto bytes = image.contents(section);
    scan_for_builder_paths({reinterpret_cast<const char*>(bytes.data()), bytes.size()}, facts);
    file.release(image.file_offset(bytes), bytes.size());
  }
}

}  // namespace kcheck

namespace kcheck {

void read_read_only_data_build_paths(const ElfImage& image, const MappedFile& file, ElfFacts& facts) {
  for (const ElfSection& section : image.sections()) {
    std::vector<std::string>* paths = is_read_only_data_section(section.name) ? &facts.read_only_data_build_paths
                                      : is_device_code_section(section.name)  ? &facts.device_code_build_paths
                                                                              : nullptr;
    if (!paths) continue;
    scan_in_windows(image, file, image.contents(section),
                    [&](std::string_view text) { scan_strings_for_source_paths(text, *paths); });
  }
}

}  // namespace kcheck
