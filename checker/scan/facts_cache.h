#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
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
};

// The content-addressed facts cache of `kcheck scan` (layout in docs/scan.md):
//
//   DIR/CACHEDIR.TAG                 marks the directory as a cache (backup tools skip it)
//   DIR/facts/<2 hex>/<62 hex>       one file's facts, fact_codec encoding; the name is
//                                    SHA-256(encoding version, context, kind, relative path,
//                                    content SHA-256)
//   DIR/paths/<2 hex>/<62 hex>       path index: "<dev> <ino> <size> <mtime ns> <ctime ns>
//                                    <content SHA-256>" for SHA-256(absolute path)
//   DIR/tmp/                         entries being written
//
// An entry is written to tmp/ and renamed into place, so readers (other
// scans sharing DIR included) see a whole entry or none; two writers of one
// key write the same bytes. An unreadable or truncated entry is a miss.
// `context` names what the facts depend on besides the bytes: the kcheck
// version and the policy. An empty `directory` keeps nothing on disk (each
// file is still hashed once per scan).
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
  std::optional<std::filesystem::path> facts_entry(const FileEntry& file, std::string_view kind);
  std::optional<std::string> read_entry(const std::filesystem::path& entry) const;
  void write_entry(const std::filesystem::path& entry, const std::string& bytes);

  std::filesystem::path directory_;
  std::string context_;
  std::chrono::nanoseconds racy_window_;
  std::mutex memo_mutex_;
  std::unordered_map<std::string, std::optional<std::string>> sha256_by_path_;  // this scan's hashes
  std::atomic<std::size_t> files_hashed_{0}, hashes_reused_{0}, facts_analysed_{0}, facts_reused_{0},
      write_failures_{0}, temporary_names_{0};
};

}  // namespace kcheck
