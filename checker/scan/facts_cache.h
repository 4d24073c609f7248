#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "checker/facts/file_facts_cache.h"
#include "checker/scan/fact_codec.h"

namespace kcheck {

// What a cache did during one scan (tests assert on these, never on time).
struct FactsCacheStats {
  std::size_t files_hashed = 0;      // contents read and hashed
  std::size_t hashes_reused = 0;     // SHA-256 taken from the entry (file unchanged since)
  std::size_t facts_analysed = 0;    // files whose facts had to be computed
  std::size_t facts_reused = 0;      // files whose facts came from the cache
  std::size_t entries_written = 0;   // repository entries written (one per repository that changed)
  std::size_t write_failures = 0;    // entries that could not be written (the scan goes on)
  std::size_t entries_rejected = 0;  // entries present but refused: over the size bound, not of their key, or corrupt
};

// An entry larger than this is neither read nor written (a repository whose
// facts encode larger is analysed on every scan). Decoding takes at most a
// few times an entry's size, since every item claimed must be backed by its
// bytes.
inline constexpr std::uint64_t kMaxFactsEntryBytes = std::uint64_t{32} << 20;

// The directory of `kcheck scan`'s facts cache (layout in docs/scan.md),
// shared by the repositories of a scan (and by concurrent scans):
//
//   DIR/CACHEDIR.TAG                 marks the directory as a cache (backup tools skip it)
//   DIR/repositories/<2 hex>/<62 hex>  one repository's entry: "kcheck-facts-entry\n<key>\n"
//                                    then the fact_codec encoding of its files' records;
//                                    the key (and the name) is SHA-256(encoding version,
//                                    context, repository key)
//   DIR/tmp/                         entries being written
//
// `context` names what the facts depend on besides the files: the analyser
// build (analyser_build_id()), the kcheck version and the policy. An empty
// `directory` keeps nothing on disk (each file is still hashed once per
// repository). A file changed less than `racy_window` before it was recorded
// is not recorded, because a second change within the file system's
// timestamp granularity would leave its stat as it was.
class FactsCacheDirectory {
 public:
  FactsCacheDirectory(std::filesystem::path directory, std::string context,
                      std::chrono::nanoseconds racy_window = std::chrono::seconds(2));

  FactsCacheStats stats() const;

 private:
  friend class RepositoryFactsCache;
  struct EntryPath {
    std::filesystem::path path;
    std::string key;  // hex SHA-256, also recorded in the entry
  };
  EntryPath entry_path(std::string_view repository_key) const;
  std::optional<std::vector<CachedFileFacts>> read_entry(const EntryPath& entry);
  void write_entry(const EntryPath& entry, const std::vector<CachedFileFacts>& files);

  std::filesystem::path directory_;
  std::string context_;
  std::chrono::nanoseconds racy_window_;
  std::atomic<std::size_t> files_hashed_{0}, hashes_reused_{0}, facts_analysed_{0}, facts_reused_{0},
      entries_written_{0}, write_failures_{0}, entries_rejected_{0}, temporary_names_{0};
};

// One repository's facts (all its revisions): read from its packed entry in
// one read when made, recorded as the audit goes, written back in one
// rename by save() when anything changed. A file's record is reused when
// its path and stat (inode, size, mtime, ctime) are those recorded,
// as git's index does; any other file is hashed and analysed again.
// Every member may be called from several threads at once.
class RepositoryFactsCache final : public FileFactsCache {
 public:
  RepositoryFactsCache(FactsCacheDirectory& directory, std::string_view repository_key);

  std::optional<std::string> content_sha256(const FileEntry& file) override;
  std::optional<PythonFileFacts> load_python(const FileEntry& file) override;
  std::optional<NativeModuleFacts> load_native(const FileEntry& file) override;
  void store_python(const FileEntry& file, const PythonFileFacts& facts) override;
  void store_native(const FileEntry& file, const NativeModuleFacts& facts) override;

  // Writes the entry when this scan changed it: the records of the files it
  // used (racy ones only with their SHA-256). The last call on the cache:
  // the records are moved out to be written.
  void save();

 private:
  struct Record {
    CachedFileFacts facts;
    bool from_entry = false;           // the entry's record of the unchanged file
    bool hash_reuse_counted = false;   // in hashes_reused, once
    bool python_left_on_disk = false;  // encoding dropped once decoded: the entry on disk has it
    bool native_left_on_disk = false;
    bool settled = false;  // not changed within the racy window: may be written
  };
  // The record of `file` in this scan (made from the entry's when the file
  // is unchanged); nullptr when the file cannot be stat'ed. Under mutex_.
  Record* record_of(const FileEntry& file);
  bool same_content(const FileEntry& file, const CachedFileFacts& recorded);
  template <typename Facts, typename Decode>
  std::optional<Facts> load(const FileEntry& file, std::string CachedFileFacts::*encoding, bool Record::*left_on_disk,
                            Decode decode);
  void store(const FileEntry& file, std::string encoding, std::string CachedFileFacts::*kept,
             bool Record::*left_on_disk);

  FactsCacheDirectory& directory_;
  FactsCacheDirectory::EntryPath entry_;
  std::mutex mutex_;
  std::map<std::string, CachedFileFacts> previous_;  // by absolute path, as read
  std::map<std::string, Record> current_;            // by absolute path, this scan's
  bool changed_ = false;
};

}  // namespace kcheck
