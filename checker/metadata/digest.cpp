#include "checker/metadata/digest.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <openssl/evp.h>

#include "checker/core/parallel.h"

namespace kcheck {
namespace {

const EVP_MD* message_digest(DigestAlgorithm algorithm) {
  return algorithm == DigestAlgorithm::sha256 ? EVP_sha256() : EVP_sha512();
}

std::string base64(const unsigned char* bytes, std::size_t size) {
  std::string encoded(4 * ((size + 2) / 3) + 1, '\0');
  const int length = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()), bytes, static_cast<int>(size));
  encoded.resize(static_cast<std::size_t>(length));
  return encoded;
}

std::optional<std::string> digest_base64(const void* data, std::size_t size, DigestAlgorithm algorithm) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_size = 0;
  if (EVP_Digest(data, size, digest, &digest_size, message_digest(algorithm), nullptr) != 1) return std::nullopt;
  return base64(digest, digest_size);
}

std::string system_error(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Closes a descriptor on every path out of hash_file.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Maps the file (through a symlink) and hashes it in one pass; the result
// is the base64 hash, or the reason it could not be read in `error`.
std::optional<std::string> hash_file(const std::filesystem::path& path, DigestAlgorithm algorithm, std::string& error) {
  const FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat status {};
  if (file.get() < 0) {
    error = system_error("open");
  } else if (::fstat(file.get(), &status) != 0) {
    error = system_error("fstat");
  } else if (!S_ISREG(status.st_mode)) {
    error = "not a regular file";
  } else if (status.st_size == 0) {
    return digest_base64("", 0, algorithm);
  } else {
    const auto size = static_cast<std::size_t>(status.st_size);
    void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.get(), 0);
    if (mapping == MAP_FAILED) {
      error = system_error("mmap");
      return std::nullopt;
    }
    ::madvise(mapping, size, MADV_SEQUENTIAL);
    auto hash = digest_base64(mapping, size, algorithm);
    ::munmap(mapping, size);
    if (!hash) error = "hashing failed";
    return hash;
  }
  return std::nullopt;
}

bool excluded_from_digest(std::string_view relative_path) {
  if (relative_path == "metadata.json" || relative_path == "metadata.json.sigstore") return true;
  if (relative_path.ends_with(".pyc")) return true;
  for (std::size_t start = 0; start <= relative_path.size();) {
    const std::size_t end = std::min(relative_path.find('/', start), relative_path.size());
    if (relative_path.substr(start, end - start) == "__pycache__") return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

std::optional<DigestAlgorithm> parse_digest_algorithm(std::string_view name) {
  if (name == "sha256") return DigestAlgorithm::sha256;
  if (name == "sha512") return DigestAlgorithm::sha512;
  return std::nullopt;
}

std::string_view to_string(DigestAlgorithm algorithm) {
  return algorithm == DigestAlgorithm::sha256 ? "sha256" : "sha512";
}

std::vector<const FileEntry*> digest_covered_files(const VariantFacts& variant) {
  std::vector<const FileEntry*> covered;
  for (const FileEntry& entry : variant.files) {
    if (!excluded_from_digest(entry.relative_path) && entry.readable_file()) covered.push_back(&entry);
  }
  std::sort(covered.begin(), covered.end(),
            [](const FileEntry* a, const FileEntry* b) { return a->relative_path < b->relative_path; });
  return covered;
}

std::string hash_bytes(std::string_view bytes, DigestAlgorithm algorithm) {
  return digest_base64(bytes.data(), bytes.size(), algorithm).value_or("");
}

FileHashes hash_files(const std::vector<const FileEntry*>& files, DigestAlgorithm algorithm, unsigned threads,
                      FileFactsCache* known, const AuditDeadline& deadline) {
  struct Outcome {
    std::optional<std::string> hash;
    std::string error;
  };
  std::vector<Outcome> outcomes(files.size());
  parallel_for(files.size(), threads, [&](std::size_t index) {
    deadline.check();
    if (known && algorithm == DigestAlgorithm::sha256) outcomes[index].hash = known->content_sha256(*files[index]);
    if (!outcomes[index].hash) outcomes[index].hash = hash_file(files[index]->path, algorithm, outcomes[index].error);
  });
  FileHashes result;
  for (std::size_t index = 0; index < files.size(); ++index) {
    const std::string& path = files[index]->relative_path;
    if (outcomes[index].hash) result.hashes.emplace(path, std::move(*outcomes[index].hash));
    else result.errors.emplace(path, std::move(outcomes[index].error));
  }
  return result;
}

ComputedDigest compute_variant_digest(const VariantFacts& variant, DigestAlgorithm algorithm, unsigned threads) {
  FileHashes hashes = hash_files(digest_covered_files(variant), algorithm, threads);
  ComputedDigest computed;
  computed.digest = {{"algorithm", to_string(algorithm)}, {"files", hashes.hashes}};
  computed.errors = std::move(hashes.errors);
  return computed;
}

DigestCheck verify_digest(const VariantFacts& variant, const MetadataFacts& metadata, unsigned threads,
                          FileFactsCache* known, const AuditDeadline& deadline) {
  DigestCheck check;
  check.has_digest = metadata.digest_declared;
  if (!metadata.digest) return check;  // absent, or malformed (a schema problem, KM002)
  const DeclaredDigest& declared = *metadata.digest;
  check.algorithm = declared.algorithm;
  const auto algorithm = parse_digest_algorithm(declared.algorithm);
  if (!algorithm) {
    check.error = "unknown digest algorithm '" + declared.algorithm + "' (allowed: sha256, sha512)";
    return check;
  }

  std::map<std::string_view, const FileEntry*> on_disk;
  for (const FileEntry* entry : digest_covered_files(variant)) on_disk.emplace(entry->relative_path, entry);

  std::vector<const FileEntry*> to_hash;
  for (const auto& [path, hash] : declared.files) {
    const auto found = on_disk.find(path);
    if (found == on_disk.end()) check.missing.push_back(path);
    else to_hash.push_back(found->second);
  }
  const FileHashes hashes = hash_files(to_hash, *algorithm, threads, known, deadline);
  for (const auto& [path, hash] : declared.files) {
    if (const auto error = hashes.errors.find(path); error != hashes.errors.end()) {
      check.unreadable.push_back(path + ": " + error->second);
    } else if (const auto actual = hashes.hashes.find(path); actual != hashes.hashes.end() && actual->second != hash) {
      check.mismatched.push_back(path);
    }
  }
  for (const auto& [path, entry] : on_disk) {
    if (!declared.files.contains(std::string(path))) check.unlisted.emplace_back(path);
  }
  return check;
}

}  // namespace kcheck
