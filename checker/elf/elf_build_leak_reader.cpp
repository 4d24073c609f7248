#include <algorithm>
#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "checker/elf/elf_readers.h"
#include "checker/elf/fatbin_decompression.h"
#include "checker/support/name_shapes.h"
#include "checker/support/work_pool.h"

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

// The character after the slash of each builder prefix ('h' of "/home/"):
// a slash followed by any other starts none of them.
constexpr std::array<bool, 256> kBuilderPrefixSecondCharacters = [] {
  std::array<bool, 256> second{};
  for (const std::string_view prefix : kBuilderPathPrefixes) second[static_cast<unsigned char>(prefix[1])] = true;
  return second;
}();

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
    start = slash + 1;
    // Cheapest test first: most slashes of a large library's data start no
    // path (a slash inside a run of path characters follows one) or no
    // builder's; only a builder's path is followed to its end.
    if (slash > 0 && is_path_char(data[slash - 1])) continue;
    if (slash + 1 == data.size() || !kBuilderPrefixSecondCharacters[static_cast<unsigned char>(data[slash + 1])])
      continue;
    const std::string_view rest = data.substr(slash);
    if (std::none_of(kBuilderPathPrefixes.begin(), kBuilderPathPrefixes.end(),
                     [&](std::string_view prefix) { return rest.starts_with(prefix); }))
      continue;
    std::size_t end = slash;
    while (end < data.size() && is_path_char(data[end])) ++end;
    const std::string_view candidate = data.substr(slash, end - slash);
    if (names_compiled_source(candidate) && std::find(paths.begin(), paths.end(), candidate) == paths.end())
      paths.emplace_back(candidate);
    start = end;
  }
}

// The pieces the strings of .rodata and the fat binaries are scanned in
// (add_scan_windows), and how far a piece's end may move to finish a string.
constexpr std::size_t kScanWindow = std::size_t{4} << 20;
constexpr std::size_t kLongestString = std::size_t{64} << 10;

// One piece of a section's strings, scanned on its own.
struct ScanWindow {
  std::string_view text;
  std::uint64_t file_offset = 0;
  std::vector<std::string>* paths = nullptr;  // where the section's paths go
  std::vector<std::string> found;             // this piece's, in order
};

// Cuts `bytes` into pieces of about kScanWindow bytes, each ending just after
// a byte that cannot be part of a path, so a path is never split and a piece
// never starts inside one (unless a run of path characters exceeds
// kLongestString).
void add_scan_windows(const ElfImage& image, std::span<const std::byte> bytes, std::vector<std::string>* paths,
                      std::vector<ScanWindow>& windows) {
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
    windows.push_back({text.substr(start, end - start), base + start, paths, {}});
    start = end;
  }
}

}  // namespace

void ChunkedSourcePathScan::add(std::string_view chunk) {
  const auto separator = std::find_if(chunk.rbegin(), chunk.rend(), [](char c) { return !is_path_char(c); });
  const std::size_t complete = chunk.size() - static_cast<std::size_t>(separator - chunk.rbegin());
  if (complete == 0) {  // all path characters: the path goes on
    carry_.append(chunk);
    if (carry_.size() > kLongestString) finish();
    return;
  }
  std::size_t rest = 0;  // where the chunk's text no longer joins the carried run
  if (!carry_.empty()) {
    // The carried run ends at the chunk's first separator: only that much
    // is copied (a separator splits the scan as it splits a path).
    const auto first_separator = std::find_if(chunk.begin(), chunk.end(), [](char c) { return !is_path_char(c); });
    rest = static_cast<std::size_t>(first_separator - chunk.begin()) + 1;
    carry_.append(chunk.substr(0, rest));
    finish();
  }
  scan_strings_for_source_paths(chunk.substr(rest, complete - rest), paths_);
  carry_.assign(chunk.substr(complete));
}

void ChunkedSourcePathScan::finish() {
  scan_strings_for_source_paths(carry_, paths_);
  carry_.clear();
}

namespace {

// Counts entries of device code in `section` that were not searched,
// keeping the first reason given and its section.
void note_unsearched(ElfFacts& facts, std::uint64_t entries, const std::string& reason, std::string_view section) {
  if (entries == 0) return;
  facts.unsearched_device_code_entries += entries;
  if (!facts.unsearched_device_code_reason.empty()) return;
  facts.unsearched_device_code_reason = reason;
  facts.unsearched_device_code_section = section;
}

// How much of a file Linux maps around a page that faults in, when the
// neighbouring pages are in the page cache (its default fault_around_bytes),
// aligned in the process's addresses, not in the file.
constexpr std::uint64_t kFaultAroundBytes = std::uint64_t{64} << 10;

// How many bytes of compressed device code a thread reads before dropping
// their pages (the rest go when its batch ends).
constexpr std::uint64_t kReleaseGranule = std::uint64_t{256} << 10;

// Consecutive compressed entries searched by one thread, with one
// decompressor: about this many bytes decompressed each.
constexpr std::uint64_t kDecompressionBatch = std::uint64_t{16} << 20;

// The decompressors of one section's batches, each handed from a finished
// batch to the next: no more of them than batches run at once, each
// allocating zstd's buffers (up to 8.8 MB for an 8 MiB window) once,
// instead of once per batch (about 90 batches on libcublasLt).
class DecompressorShelf {
 public:
  std::unique_ptr<FatbinPayloadDecompressor> take() {
    const std::lock_guard lock(mutex_);
    if (idle_.empty()) return std::make_unique<FatbinPayloadDecompressor>();
    std::unique_ptr<FatbinPayloadDecompressor> decompressor = std::move(idle_.back());
    idle_.pop_back();
    return decompressor;
  }
  void put_back(std::unique_ptr<FatbinPayloadDecompressor> decompressor) {
    const std::lock_guard lock(mutex_);
    idle_.push_back(std::move(decompressor));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<FatbinPayloadDecompressor>> idle_;
};

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

void read_read_only_data_build_paths(const ElfImage& image, const MappedFile& file, ElfFacts& facts, WorkPool* pool,
                                     ScanPieceVisitor* visitor) {
  std::vector<ScanWindow> windows;
  for (const ElfSection& section : image.sections()) {
    std::vector<std::string>* paths = is_read_only_data_section(section.name) ? &facts.read_only_data_build_paths
                                      : is_device_code_section(section.name)  ? &facts.device_code_build_paths
                                                                              : nullptr;
    if (paths) add_scan_windows(image, image.contents(section), paths, windows);
  }
  // Each piece is scanned on its own, and its pages dropped from the resident
  // set once scanned (a 46 MB .rodata costs a few MB of memory); the pieces'
  // paths are then taken in file order, so the facts are those of one pass:
  // a piece keeps its first kMaxLeakedSourcePaths distinct paths, enough for
  // any that a pass would add after the pieces before it.
  const auto scan = [&](std::size_t index) {
    ScanWindow& window = windows[index];
    scan_strings_for_source_paths(window.text, window.found);
    if (visitor) visitor->scanned(window.file_offset, window.text.size());
    file.release(window.file_offset, window.text.size());
  };
  if (pool && windows.size() > 1) {
    // The pool takes the largest first, the equal in order: every piece but
    // a section's last costs the same, so the pieces start in file order,
    // which the visitor's walk follows.
    std::vector<std::uint64_t> costs;
    costs.reserve(windows.size());
    for (const ScanWindow& window : windows) costs.push_back(std::min(window.text.size(), kScanWindow));
    pool->run(WorkKind::leaf, costs, scan);
  } else {
    for (std::size_t index = 0; index < windows.size(); ++index) scan(index);
  }
  for (ScanWindow& window : windows)
    for (std::string& path : window.found)
      if (window.paths->size() < ElfFacts::kMaxLeakedSourcePaths &&
          std::find(window.paths->begin(), window.paths->end(), path) == window.paths->end())
        window.paths->push_back(std::move(path));
}

void read_compressed_device_code_paths(const ElfImage& image, const MappedFile& file,
                                       std::span<const std::byte> section, std::string_view section_name,
                                       const CompressedFatbinPayloads& compressed, ElfFacts& facts, WorkPool* pool) {
  const std::vector<CompressedFatbinPayload>& payloads = compressed.listed;
  // The entries within the bound, by the sizes they declare: which ones
  // are searched does not depend on what they hold or on the threads.
  const std::uint64_t bound = std::min(kMaxDecompressedDeviceCode, kMaxDecompressionRatio * section.size());
  std::size_t within_bound = 0;
  for (std::uint64_t declared = 0; within_bound < payloads.size(); ++within_bound) {
    const std::uint64_t size = payloads[within_bound].decompressed_size;
    if (size > bound - declared) break;
    declared += size;
  }
  struct Batch {
    std::size_t first = 0, end = 0;
    std::uint64_t decompressed = 0;  // declared
    std::vector<std::string> found;  // in order
    std::uint64_t unsearched = 0;
    std::string reason;  // the first unsearched entry's
  };
  std::vector<Batch> batches;
  for (std::size_t index = 0; index < within_bound; ++index) {
    if (batches.empty() || batches.back().decompressed >= kDecompressionBatch) batches.push_back({index, index});
    batches.back().end = index + 1;
    batches.back().decompressed += payloads[index].decompressed_size;
  }
  const std::uint64_t base = section.empty() ? 0 : image.file_offset(section);
  DecompressorShelf shelf;
  const std::uint64_t page = MappedFile::page_size();
  const auto search = [&](std::size_t index) {
    Batch& batch = batches[index];
    std::unique_ptr<FatbinPayloadDecompressor> decompressor = shelf.take();
    // Where the batch's pages not yet released start (release() drops whole
    // pages only: the page an entry shares with the next goes with the next).
    const std::uint64_t first = base + payloads[batch.first].offset;
    std::uint64_t unreleased = first;
    const auto release_up_to = [&](std::uint64_t end) {
      // The walk lists entries in file order. Each release costs the other
      // threads a TLB flush: the pages go a quarter MiB at a time.
      if (end <= unreleased || end - unreleased < kReleaseGranule) return;
      file.release(unreleased, end - unreleased);
      unreleased = std::max(unreleased, end / page * page);
    };
    for (std::size_t entry = batch.first; entry < batch.end; ++entry) {
      const CompressedFatbinPayload& payload = payloads[entry];
      const std::uint64_t start = base + payload.offset;
      ChunkedSourcePathScan scan(batch.found);
      // A large frame's compressed bytes go as zstd reads them.
      const std::string why = decompressor->decompress(
          payload, section.subspan(payload.offset, payload.size), [&](std::string_view chunk) { scan.add(chunk); },
          [&](std::size_t read) { release_up_to(start + read); });
      scan.finish();  // what did decompress was searched
      if (!why.empty() && batch.unsearched++ == 0)
        batch.reason =
            "the entry at offset " + std::to_string(payload.offset) + " of " + std::string(section_name) + ": " + why;
      release_up_to(start + payload.size);
    }
    // The pages the kernel mapped around those the batch read (fault-around),
    // before its first entry and past its last: about a page and its
    // neighbours per batch stayed resident otherwise (1.2 MB on libcublasLt).
    // A neighbouring batch's thread reading one of them maps it again.
    const CompressedFatbinPayload& last = payloads[batch.end - 1];
    const std::uint64_t around_first = first - std::min(first, kFaultAroundBytes);
    file.release(around_first, base + last.offset + last.size + kFaultAroundBytes - around_first);
    shelf.put_back(std::move(decompressor));
  };
  if (pool && batches.size() > 1) {
    std::vector<std::uint64_t> costs;
    costs.reserve(batches.size());
    for (const Batch& batch : batches) costs.push_back(batch.decompressed);
    pool->run(WorkKind::leaf, costs, search);
  } else {
    for (std::size_t index = 0; index < batches.size(); ++index) search(index);
  }
  // In file order, as one pass would find them.
  std::vector<std::string>& paths = facts.device_code_build_paths;
  for (Batch& batch : batches) {
    for (std::string& path : batch.found)
      if (paths.size() < ElfFacts::kMaxLeakedSourcePaths && std::find(paths.begin(), paths.end(), path) == paths.end())
        paths.push_back(std::move(path));
    note_unsearched(facts, batch.unsearched, batch.reason, section_name);
  }
  note_unsearched(facts, payloads.size() - within_bound,
                  "past the first " + std::to_string(bound) + " bytes the entries declare, kcheck's bound on " +
                      "what it decompresses of one fat binary (" + std::to_string(kMaxDecompressionRatio) +
                      " times the size of " + std::string(section_name) + ", " +
                      std::to_string(kMaxDecompressedDeviceCode >> 30) + " GiB at most)",
                  section_name);
  note_unsearched(facts, compressed.not_listed,
                  "past the first " + std::to_string(kMaxCompressedFatbinPayloads) +
                      " compressed entries, kcheck's bound on how many it lists",
                  section_name);
}

void count_compressed_hip_bundles(const ElfImage& image, ElfFacts& facts) {
  const ElfSection* hip = image.find_section(".hip_fatbin");
  if (hip == nullptr) return;
  note_unsearched(facts, count_compressed_offload_bundles(image.contents(*hip)),
                  "a compressed clang offload bundle in .hip_fatbin (magic CCOB, hipcc --offload-compress), "
                  "which kcheck does not decompress",
                  ".hip_fatbin");
}

}  // namespace kcheck
