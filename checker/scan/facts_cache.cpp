#include "checker/scan/facts_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <openssl/evp.h>

#include "checker/core/bounded_read.h"
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
  line << status.st_dev << ' ' << status.st_ino << ' ' << status.st_size << ' ' << nanoseconds(status.st_mtim) << ' '
       << nanoseconds(status.st_ctim);
  return line.str();
}

// Not changed within `window` of now (see the class comment on racy entries).
bool settled(const struct stat& status, std::chrono::nanoseconds window) {
  const long long now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  return now - std::max(nanoseconds(status.st_mtim), nanoseconds(status.st_ctim)) >= window.count();
}

// The header that binds an entry to its key: an entry copied under another
// name (another file's facts passed off as this one's) is refused.
std::string entry_header(const std::string& key) { return "kcheck-facts-entry\n" + key + '\n'; }

}  // namespace

ContentFactsCache::ContentFactsCache(fs::path directory, std::string context, std::chrono::nanoseconds racy_window)
    : directory_(std::move(directory)), context_(std::move(context)), racy_window_(racy_window) {
  if (directory_.empty()) return;
  std::error_code error;
  fs::create_directories(directory_ / "tmp", error);
  if (!fs::exists(directory_ / "CACHEDIR.TAG", error)) {
    write_entry(directory_ / "CACHEDIR.TAG",
                "Signature: 8a477f597d28d172789f06886806bc55\n# kcheck scan's facts cache (docs/scan.md)\n");
  }
}

// Never more than kMaxFactsEntryBytes, whatever was planted in the directory.
std::optional<std::string> ContentFactsCache::read_entry(const fs::path& entry) const {
  std::string error;
  return read_bounded_file(entry, kMaxFactsEntryBytes, error);
}

void ContentFactsCache::write_entry(const fs::path& entry, const std::string& bytes) {
  std::error_code error;
  fs::create_directories(entry.parent_path(), error);
  std::ostringstream name;
  name << ::getpid() << '-' << std::hash<std::thread::id>{}(std::this_thread::get_id()) << '-' << temporary_names_++;
  const fs::path temporary = directory_ / "tmp" / name.str();
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << bytes;
    out.close();
    if (!out) {
      ++write_failures_;
      fs::remove(temporary, error);
      return;
    }
  }
  fs::rename(temporary, entry, error);  // atomic: readers see the old entry, or this one
  if (error) {
    ++write_failures_;
    fs::remove(temporary, error);
  }
}

std::optional<std::string> ContentFactsCache::sha256_from_path_index(const FileEntry& file) {
  struct stat status {};
  if (::stat(file.path.c_str(), &status) != 0) return std::nullopt;
  const std::string identity = stat_line(status);
  const fs::path entry = fan_out(directory_, "paths", sha256_hex(file.path.string()));
  if (std::optional<std::string> line = read_entry(entry)) {
    const std::size_t space = line->rfind(' ');
    if (space != std::string::npos && line->substr(0, space) == identity && line->size() > space + 1) {
      ++hashes_reused_;
      std::string hash = line->substr(space + 1);
      if (!hash.empty() && hash.back() == '\n') hash.pop_back();
      return hash;
    }
  }
  std::string error;
  const std::optional<std::string> hash = hash_file(file.path, DigestAlgorithm::sha256, error);
  ++files_hashed_;
  if (!hash) return std::nullopt;
  if (settled(status, racy_window_)) write_entry(entry, identity + ' ' + *hash + '\n');
  return hash;
}

std::optional<std::string> ContentFactsCache::content_sha256(const FileEntry& file) {
  const std::string key = file.path.string();
  {
    std::lock_guard lock(memo_mutex_);
    if (auto known = sha256_by_path_.find(key); known != sha256_by_path_.end()) return known->second;
  }
  std::optional<std::string> hash;
  if (!directory_.empty()) {
    hash = sha256_from_path_index(file);
  } else {
    std::string error;
    hash = hash_file(file.path, DigestAlgorithm::sha256, error);
    ++files_hashed_;
  }
  std::lock_guard lock(memo_mutex_);
  return sha256_by_path_.emplace(key, std::move(hash)).first->second;
}

std::optional<ContentFactsCache::FactsEntry> ContentFactsCache::facts_entry(const FileEntry& file, std::string_view kind) {
  if (directory_.empty()) return std::nullopt;
  const std::optional<std::string> content = content_sha256(file);
  if (!content) return std::nullopt;
  std::string material = "kcheck-facts\n" + std::to_string(kFactsEncodingVersion) + '\n' + context_ + '\n';
  material += std::string(kind) + '\n' + file.relative_path + '\n' + *content;
  std::string key = sha256_hex(material);
  fs::path path = fan_out(directory_, "facts", key);
  return FactsEntry{std::move(path), std::move(key)};
}

std::optional<std::string> ContentFactsCache::read_facts_encoding(const FactsEntry& entry) {
  std::string error;
  std::optional<std::string> bytes = read_bounded_file(entry.path, kMaxFactsEntryBytes, error);
  if (!bytes) {
    if (fs::exists(entry.path)) ++entries_rejected_;  // over the bound, or not a regular file
    return std::nullopt;
  }
  const std::string header = entry_header(entry.key);
  if (!bytes->starts_with(header)) {
    ++entries_rejected_;
    return std::nullopt;
  }
  bytes->erase(0, header.size());
  return bytes;
}

void ContentFactsCache::write_facts_entry(const FactsEntry& entry, const std::string& encoding) {
  std::string bytes = entry_header(entry.key) + encoding;
  if (bytes.size() <= kMaxFactsEntryBytes) write_entry(entry.path, bytes);
}

std::optional<PythonFileFacts> ContentFactsCache::load_python(const FileEntry& file) {
  const std::optional<FactsEntry> entry = facts_entry(file, "python");
  if (!entry) return std::nullopt;
  const std::optional<std::string> encoding = read_facts_encoding(*entry);
  if (!encoding) return std::nullopt;
  std::optional<PythonFileFacts> facts = decode_python_facts(*encoding);
  if (facts) ++facts_reused_;
  return facts;
}

std::optional<NativeModuleFacts> ContentFactsCache::load_native(const FileEntry& file) {
  const std::optional<FactsEntry> entry = facts_entry(file, "native");
  if (!entry) return std::nullopt;
  const std::optional<std::string> encoding = read_facts_encoding(*entry);
  if (!encoding) return std::nullopt;
  std::optional<NativeModuleFacts> facts = decode_native_facts(*encoding);
  if (facts) ++facts_reused_;
  return facts;
}

void ContentFactsCache::store_python(const FileEntry& file, const PythonFileFacts& facts) {
  ++facts_analysed_;
  if (const std::optional<FactsEntry> entry = facts_entry(file, "python")) write_facts_entry(*entry, encode_python_facts(facts));
}

void ContentFactsCache::store_native(const FileEntry& file, const NativeModuleFacts& facts) {
  ++facts_analysed_;
  if (const std::optional<FactsEntry> entry = facts_entry(file, "native")) write_facts_entry(*entry, encode_native_facts(facts));
}

FactsCacheStats ContentFactsCache::stats() const {
  return {files_hashed_, hashes_reused_, facts_analysed_, facts_reused_, write_failures_, entries_rejected_};
}

}  // namespace kcheck
