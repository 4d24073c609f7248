#include "checker/scan/facts_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <fstream>
#include <sstream>
#include <thread>

#include <openssl/evp.h>

#include "checker/support/bounded_read.h"
#include "checker/metadata/digest.h"
#include "checker/scan/fact_codec.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

// DIR/<area>/<first two hex digits>/<the rest>.
fs::path fan_out(const fs::path& directory, std::string_view area, const std::string& hex) {
  return directory / area / hex.substr(0, 2) / hex.substr(2);
}

long long nanoseconds(const timespec& time) { return time.tv_sec * 1'000'000'000LL + time.tv_nsec; }

// The identity of a file's bytes as far as the path index goes.
std::string stat_line(const struct stat& status) {
  std::ostringstream line;
  // Not st_dev: a network file system's device number differs between the
  // nodes that share a cache (and after a remount); the path is in the key.
  line << status.st_ino << ' ' << status.st_size << ' ' << nanoseconds(status.st_mtim) << ' '
       << nanoseconds(status.st_ctim);
  return line.str();
}

// Not changed within `window` of now (see the class comment on racy entries).
bool settled(const struct stat& status, std::chrono::nanoseconds window) {
  const long long now =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  return now - std::max(nanoseconds(status.st_mtim), nanoseconds(status.st_ctim)) >= window.count();
}

// The header that binds an entry to its key: an entry copied under another
// name (another file's facts passed off as this one's) is refused.
std::string entry_header(const std::string& key) { return "kcheck-facts-entry\n" + key + '\n'; }

}  // namespace

FactsCacheDirectory::FactsCacheDirectory(fs::path directory, std::string context, std::chrono::nanoseconds racy_window)
    : directory_(std::move(directory)), context_(std::move(context)), racy_window_(racy_window) {
  if (directory_.empty()) return;
  std::error_code error;
  fs::create_directories(directory_ / "tmp", error);
  if (!fs::exists(directory_ / "CACHEDIR.TAG", error)) {
    std::ofstream tag(directory_ / "CACHEDIR.TAG", std::ios::binary | std::ios::trunc);
    tag << "Signature: 8a477f597d28d172789f06886806bc55\n# kcheck scan's facts cache (docs/scan.md)\n";
  }
}

FactsCacheStats FactsCacheDirectory::stats() const {
  return {files_hashed_,    hashes_reused_,  facts_analysed_,  facts_reused_,
          entries_written_, write_failures_, entries_rejected_};
}

FactsCacheDirectory::EntryPath FactsCacheDirectory::entry_path(std::string_view repository_key) const {
  if (directory_.empty()) return {};
  std::string key = sha256_hex("kcheck-repository-facts\n" + std::to_string(kFactsEncodingVersion) + '\n' + context_ +
                               '\n' + std::string(repository_key));
  fs::path path = fan_out(directory_, "repositories", key);
  return {std::move(path), std::move(key)};
}

// Never more than kMaxFactsEntryBytes, whatever was planted in the directory;
// an entry not of its key, or not a whole encoding, is refused.
std::optional<std::vector<CachedFileFacts>> FactsCacheDirectory::read_entry(const EntryPath& entry) {
  if (entry.path.empty()) return std::nullopt;
  std::error_code error;
  if (!fs::exists(entry.path, error)) return std::nullopt;
  std::string reason;
  std::optional<std::string> bytes = read_bounded_file(entry.path, kMaxFactsEntryBytes, reason);
  const std::string header = entry_header(entry.key);
  std::optional<std::vector<CachedFileFacts>> files;
  if (bytes && bytes->starts_with(header)) files = decode_cached_files(std::string_view(*bytes).substr(header.size()));
  if (!files) ++entries_rejected_;
  return files;
}

void FactsCacheDirectory::write_entry(const EntryPath& entry, const std::vector<CachedFileFacts>& files) {
  const std::string header = entry_header(entry.key);
  const std::string encoding = encode_cached_files(files);
  if (header.size() + encoding.size() > kMaxFactsEntryBytes) return;
  std::error_code error;
  fs::create_directories(entry.path.parent_path(), error);
  std::ostringstream name;
  // Unique across the machines sharing the cache (pods are often all pid 1).
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  name << host << '-' << ::getpid() << '-' << std::hash<std::thread::id>{}(std::this_thread::get_id()) << '-'
       << std::random_device{}() << '-' << temporary_names_++;
  const fs::path temporary = directory_ / "tmp" / name.str();
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << header << encoding;
    out.close();
    if (!out) {
      ++write_failures_;
      fs::remove(temporary, error);
      return;
    }
  }
  fs::rename(temporary, entry.path, error);  // atomic: readers see the old entry, or this one
  if (error) {
    ++write_failures_;
    fs::remove(temporary, error);
    return;
  }
  ++entries_written_;
}

RepositoryFactsCache::RepositoryFactsCache(FactsCacheDirectory& directory, std::string_view repository_key)
    : directory_(directory), entry_(directory.entry_path(repository_key)) {
  if (std::optional<std::vector<CachedFileFacts>> files = directory_.read_entry(entry_))
    for (CachedFileFacts& file : *files) previous_.emplace(file.path, std::move(file));
}

RepositoryFactsCache::Record* RepositoryFactsCache::record_of(const FileEntry& file) {
  const std::string path = file.path.string();
  if (auto known = current_.find(path); known != current_.end()) return &known->second;
  struct stat status {};
  if (::stat(file.path.c_str(), &status) != 0) return nullptr;
  Record record;
  record.facts.path = path;
  record.facts.identity = stat_line(status);
  record.settled = settled(status, directory_.racy_window_);
  if (auto before = previous_.find(path); before != previous_.end() &&
                                          before->second.identity == record.facts.identity &&
                                          (!before->second.racy || same_content(file, before->second))) {
    changed_ = changed_ || before->second.racy;  // now vouched for by its stat, once settled
    record.facts = std::move(before->second);    // one copy of its facts in memory: this one
    record.facts.racy = false;
    record.from_entry = true;
  } else {
    changed_ = true;
  }
  return &current_.emplace(path, std::move(record)).first->second;
}

// A racy record's file still has the content it had (hashed again, under
// the lock: racy records are files changed within seconds of a scan).
bool RepositoryFactsCache::same_content(const FileEntry& file, const CachedFileFacts& recorded) {
  std::string error;
  const std::optional<std::string> hash = hash_file(file.path, DigestAlgorithm::sha256, error);
  ++directory_.files_hashed_;
  return hash && recorded.sha256 && *hash == *recorded.sha256;
}

std::optional<std::string> RepositoryFactsCache::content_sha256(const FileEntry& file) {
  {
    std::lock_guard lock(mutex_);
    Record* record = record_of(file);
    if (record && record->facts.sha256) {
      if (record->from_entry && !record->hash_reuse_counted) ++directory_.hashes_reused_;
      record->hash_reuse_counted = true;
      return record->facts.sha256;
    }
  }
  std::string error;
  std::optional<std::string> hash = hash_file(file.path, DigestAlgorithm::sha256, error);
  ++directory_.files_hashed_;
  std::lock_guard lock(mutex_);
  if (Record* record = record_of(file); record && hash) {
    record->facts.sha256 = hash;
    changed_ = true;
  }
  return hash;
}

// The facts a record holds for `file`, decoded; their encoding is then
// dropped when the entry on disk still has it (save() reads it back if it
// must write), so that a rescan holds each file's facts once, in the audit.
template <typename Facts, typename Decode>
std::optional<Facts> RepositoryFactsCache::load(const FileEntry& file, std::string CachedFileFacts::*encoding,
                                                bool Record::*left_on_disk, Decode decode) {
  std::lock_guard lock(mutex_);
  Record* record = record_of(file);
  if (!record || (record->facts.*encoding).empty()) return std::nullopt;
  std::optional<Facts> facts = decode(record->facts.*encoding);
  if (!facts || facts->relative_path != file.relative_path) return std::nullopt;
  if (record->from_entry) {
    std::string().swap(record->facts.*encoding);
    record->*left_on_disk = true;
  }
  ++directory_.facts_reused_;
  return facts;
}

std::optional<PythonFileFacts> RepositoryFactsCache::load_python(const FileEntry& file) {
  return load<PythonFileFacts>(file, &CachedFileFacts::python_encoding, &Record::python_left_on_disk,
                               decode_python_facts);
}

std::optional<NativeModuleFacts> RepositoryFactsCache::load_native(const FileEntry& file) {
  return load<NativeModuleFacts>(file, &CachedFileFacts::native_encoding, &Record::native_left_on_disk,
                                 decode_native_facts);
}

// The facts the audit computed for `file`, kept encoded until save().
void RepositoryFactsCache::store(const FileEntry& file, std::string encoding, std::string CachedFileFacts::*kept,
                                 bool Record::*left_on_disk) {
  ++directory_.facts_analysed_;
  if (entry_.path.empty()) return;  // nothing kept on disk: the audit holds the facts, no copy here
  std::lock_guard lock(mutex_);
  if (Record* record = record_of(file)) {
    record->facts.*kept = std::move(encoding);
    record->*left_on_disk = false;
    changed_ = true;
  }
}

void RepositoryFactsCache::store_python(const FileEntry& file, const PythonFileFacts& facts) {
  store(file, entry_.path.empty() ? std::string() : encode_python_facts(facts), &CachedFileFacts::python_encoding,
        &Record::python_left_on_disk);
}

void RepositoryFactsCache::store_native(const FileEntry& file, const NativeModuleFacts& facts) {
  store(file, entry_.path.empty() ? std::string() : encode_native_facts(facts), &CachedFileFacts::native_encoding,
        &Record::native_left_on_disk);
}

void RepositoryFactsCache::save() {
  std::lock_guard lock(mutex_);
  if (entry_.path.empty()) return;
  // Files recorded before and not used this time (deleted, or no longer audited) leave the entry.
  bool dropped = false;
  for (const auto& [path, facts] : previous_) dropped = dropped || !current_.contains(path);
  if (!changed_ && !dropped) return;
  // Encodings dropped once decoded are read back from the entry on disk,
  // when it is still the one this scan read (another scan may have replaced
  // it: a record whose facts are then gone is written without them).
  bool needs_entry = false;
  for (const auto& [path, record] : current_)
    needs_entry = needs_entry || record.python_left_on_disk || record.native_left_on_disk;
  std::map<std::string, CachedFileFacts> on_disk;
  if (needs_entry)
    if (std::optional<std::vector<CachedFileFacts>> files = directory_.read_entry(entry_))
      for (CachedFileFacts& file : *files) on_disk.emplace(file.path, std::move(file));
  for (auto& [path, record] : current_) {
    const auto before = on_disk.find(path);
    const bool same = before != on_disk.end() && before->second.identity == record.facts.identity;
    if (record.python_left_on_disk && same) record.facts.python_encoding = std::move(before->second.python_encoding);
    if (record.native_left_on_disk && same) record.facts.native_encoding = std::move(before->second.native_encoding);
  }
  // A file changed within the racy window may have changed again since it
  // was analysed without its stat showing it: its record keeps only its
  // SHA-256 (checked by the next scan before use), never facts.
  std::vector<CachedFileFacts> files;
  for (auto& [path, record] : current_) {
    if (!record.settled) {
      if (!record.facts.sha256) continue;
      std::string().swap(record.facts.python_encoding);
      std::string().swap(record.facts.native_encoding);
    }
    files.push_back(std::move(record.facts));  // the cache is done with them: no copy
    files.back().racy = !record.settled;
  }
  directory_.write_entry(entry_, files);
}

}  // namespace kcheck
