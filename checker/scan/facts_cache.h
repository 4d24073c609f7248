#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "checker/core/file_facts_cache.h"

namespace kcheck {

// What a cache did during one scan (tests assert on these, never on time).
struct FactsCacheStats {
  std::size_t files_hashed = 0;     // contents read and hashed
  std::size_t hashes_reused = 0;    // SHA-256 taken from the path index (file unchanged since)
  std::size_t facts_analysed = 0;   // files whose facts had to be computed
  std::size_t facts_reused = 0;     // files whose facts came from the cache
  std::size_t write_failures = 0;   // entries that could not be written (the scan goes on)
  std::size_t entries_rejected = 0; // entries present but refused: over the size bound, or not of their key
};

// An entry larger than this is neither read nor written (a file whose facts
// encode larger is analysed each time). Decoding takes at most a few times an
// entry's size, since every item claimed must be backed by its bytes.
inline constexpr std::uint64_t kMaxFactsEntryBytes = std::uint64_t{16} << 20;

// The content-addressed facts cache of `kcheck scan` (layout in docs/scan.md):
//
//   DIR/CACHEDIR.TAG                 marks the directory as a cache (backup tools skip it)
//   DIR/facts/<2 hex>/<62 hex>       one file's facts: "kcheck-facts-entry\n<key>\n" then
//                                    the fact_codec encoding; the key (and the name) is
//                                    SHA-256(encoding version, context, kind, relative path,
//                                    content SHA-256)
//   DIR/paths/<2 hex>/<62 hex>       path index: "<dev> <ino> <size> <mtime ns> <ctime ns>
//                                    <content SHA-256>" for SHA-256(absolute path)
//   DIR/tmp/                         entries being written
//
// An entry is written to tmp/ and renamed into place, so readers (other
// scans sharing DIR included) see a whole entry or none; two writers of one
// key write the same bytes. An unreadable or truncated entry is a miss, and
// so is one above kMaxFactsEntryBytes or whose recorded key is not the one
// it was looked up under (an entry copied or renamed). Entries are not
// signed: whoever can write DIR can make the scan believe any facts, so the
// audited party must never be able to write it (docs/scan.md).
// `context` names what the facts depend on besides the bytes: the analyser
// build (analyser_build_id()), the kcheck version and the policy. An empty
// `directory` keeps nothing on disk (each file is still hashed once per scan).
//
// The path index trusts a file's stat (device, inode, size, mtime, ctime)
// the way git's index does; a file changed less than `racy_window` before it
// was indexed is not indexed, because a second change within the file
// system's timestamp granularity would leave its stat as it was.
class ContentFactsCache final : public FileFactsCache {
 public:
  ContentFactsCache(std::filesystem::path directory, std::string context,
                    std::chrono::nanoseconds racy_window = std::chrono::seconds(2));

  std::optional<std::string> content_sha256(const FileEntry& file) override;
  std::optional<PythonFileFacts> load_python(const FileEntry& file) override;
  std::optional<NativeModuleFacts> load_native(const FileEntry& file) override;
  void store_python(const FileEntry& file, const PythonFileFacts& facts) override;
  void store_native(const FileEntry& file, const NativeModuleFacts& facts) override;

  FactsCacheStats stats() const;

 private:
  std::optional<std::string> sha256_from_path_index(const FileEntry& file);
  struct FactsEntry {
    std::filesystem::path path;
    std::string key;  // hex SHA-256, also recorded in the entry
  };
  std::optional<FactsEntry> facts_entry(const FileEntry& file, std::string_view kind);
  std::optional<std::string> read_entry(const std::filesystem::path& entry) const;
  std::optional<std::string> read_facts_encoding(const FactsEntry& entry);
  void write_facts_entry(const FactsEntry& entry, const std::string& encoding);
  void write_entry(const std::filesystem::path& entry, const std::string& bytes);

  std::filesystem::path directory_;
  std::string context_;
  std::chrono::nanoseconds racy_window_;
  std::mutex memo_mutex_;
  std::unordered_map<std::string, std::optional<std::string>> sha256_by_path_;  // this scan's hashes
  std::atomic<std::size_t> files_hashed_{0}, hashes_reused_{0}, facts_analysed_{0}, facts_reused_{0},
      write_failures_{0}, entries_rejected_{0}, temporary_names_{0};
};

}  // namespace kcheck
