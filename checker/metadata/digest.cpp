#include "checker/metadata/digest.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "checker/support/work_pool.h"

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

// The bytes of a file are read through a window of this size, mapped with
// its pages populated and unmapped behind: resident memory stays at one
// window per thread whatever the file's size.
constexpr std::size_t kHashWindowBytes = std::size_t{2} << 20;

// And hashed in place a kilobyte at a time, the next kilobyte fetched into
// the cache while one is hashed. The page cache is not in the CPU's
// cache, and SHA-256 works through one 64-byte block at a time: hashing a
// window in one call waited on the memory for every block (1.06 GB/s here),
// copying 64 KiB pieces into a buffer that stays in the cache streamed the
// memory at its full rate but did not overlap it with the hashing (1.46);
// prefetching ahead of the hashing overlaps the two (issue #32,
// bench/paired_digest.py and bench/digest_perf.py).
constexpr std::size_t kHashStepBytes = 1024;
constexpr std::size_t kPrefetchAheadBytes = 1024;
constexpr std::size_t kCacheLineBytes = 64;

void prefetch(const unsigned char* from, const unsigned char* to) {
  for (; from < to; from += kCacheLineBytes) __builtin_prefetch(from);
}

// Feeds the file's bytes to `context` window by window; the reason it could
// not, or nothing.
std::optional<std::string> update_with_file(EVP_MD_CTX* context, int fd, std::size_t size) {
  for (std::size_t offset = 0; offset < size; offset += kHashWindowBytes) {
    const std::size_t length = std::min(kHashWindowBytes, size - offset);
    void* window = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, static_cast<off_t>(offset));
    if (window == MAP_FAILED) return system_error("mmap");
    const auto* bytes = static_cast<const unsigned char*>(window);
    prefetch(bytes, bytes + std::min(kPrefetchAheadBytes, length));
    bool updated = true;
    for (std::size_t done = 0; done < length && updated; done += kHashStepBytes) {
      const std::size_t ahead = std::min(done + kPrefetchAheadBytes, length);
      prefetch(bytes + ahead, bytes + std::min(ahead + kHashStepBytes, length));
      updated = EVP_DigestUpdate(context, bytes + done, std::min(kHashStepBytes, length - done)) == 1;
    }
    ::munmap(window, length);
    if (!updated) return "hashing failed";
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

void initialise_hashing() {
  OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_ADD_ALL_CIPHERS | OPENSSL_INIT_NO_ADD_ALL_DIGESTS,
                      nullptr);
}

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

std::optional<std::string> hash_file(const std::filesystem::path& path, DigestAlgorithm algorithm, std::string& error) {
  const FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat status {};
  if (file.get() < 0) {
    error = system_error("open");
    return std::nullopt;
  }
  if (::fstat(file.get(), &status) != 0) {
    error = system_error("fstat");
    return std::nullopt;
  }
  if (!S_ISREG(status.st_mode)) {
    error = "not a regular file";
    return std::nullopt;
  }
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_size = 0;
  if (!context || EVP_DigestInit_ex(context.get(), message_digest(algorithm), nullptr) != 1) {
    error = "hashing failed";
    return std::nullopt;
  }
  if (std::optional<std::string> failure =
          update_with_file(context.get(), file.get(), static_cast<std::size_t>(status.st_size))) {
    error = std::move(*failure);
    return std::nullopt;
  }
  if (EVP_DigestFinal_ex(context.get(), digest, &digest_size) != 1) {
    error = "hashing failed";
    return std::nullopt;
  }
  return base64(digest, digest_size);
}

std::optional<std::string> hash_of(const FileEntry& file, DigestAlgorithm algorithm, FileFactsCache* known,
                                   std::string& error) {
  if (known && algorithm == DigestAlgorithm::sha256)
    if (std::optional<std::string> hash = known->content_sha256(file)) return hash;
  return hash_file(file.path, algorithm, error);
}

FileHashes hash_files(const std::vector<const FileEntry*>& files, DigestAlgorithm algorithm, unsigned threads) {
  struct Outcome {
    std::optional<std::string> hash;
    std::string error;
  };
  std::vector<Outcome> outcomes(files.size());
  std::vector<std::uint64_t> sizes;
  sizes.reserve(files.size());
  for (const FileEntry* file : files) sizes.push_back(file->size);
  WorkPool pool(threads);
  pool.run(WorkKind::leaf, sizes, [&](std::size_t index) {
    outcomes[index].hash = hash_of(*files[index], algorithm, nullptr, outcomes[index].error);
  });
  FileHashes result;
  for (std::size_t index = 0; index < files.size(); ++index) {
    const std::string& path = files[index]->relative_path;
    if (outcomes[index].hash)
      result.hashes.emplace(path, std::move(*outcomes[index].hash));
    else
      result.errors.emplace(path, std::move(outcomes[index].error));
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

DigestVerification plan_digest_verification(const VariantFacts& variant, const MetadataFacts& metadata) {
  DigestVerification plan;
  plan.check.has_digest = metadata.digest_declared;
  if (!metadata.digest) return plan;  // absent, or malformed (a schema problem, KM002)
  const DeclaredDigest& declared = *metadata.digest;
  plan.check.algorithm = declared.algorithm;
  plan.algorithm = parse_digest_algorithm(declared.algorithm);
  if (!plan.algorithm) {
    plan.check.error = "unknown digest algorithm '" + declared.algorithm + "' (allowed: sha256, sha512)";
    return plan;
  }
  std::map<std::string_view, const FileEntry*> on_disk;
  for (const FileEntry* entry : digest_covered_files(variant)) on_disk.emplace(entry->relative_path, entry);
  for (const auto& [path, hash] : declared.files) {
    const auto found = on_disk.find(path);
    if (found == on_disk.end())
      plan.check.missing.push_back(path);
    else
      plan.to_hash.push_back(found->second);
  }
  for (const auto& [path, entry] : on_disk) {
    if (!declared.files.contains(std::string(path))) plan.check.unlisted.emplace_back(path);
  }
  return plan;
}

DigestCheck finish_digest_verification(DigestVerification plan, const MetadataFacts& metadata,
                                       const FileHashes& hashes) {
  DigestCheck check = std::move(plan.check);
  if (!plan.algorithm) return check;
  for (const auto& [path, hash] : metadata.digest->files) {
    if (const auto error = hashes.errors.find(path); error != hashes.errors.end()) {
      check.unreadable.push_back(path + ": " + error->second);
    } else if (const auto actual = hashes.hashes.find(path); actual != hashes.hashes.end() && actual->second != hash) {
      check.mismatched.push_back(path);
    }
  }
  return check;
}

DigestCheck verify_digest(const VariantFacts& variant, const MetadataFacts& metadata, unsigned threads) {
  DigestVerification plan = plan_digest_verification(variant, metadata);
  FileHashes hashes;
  if (plan.algorithm) hashes = hash_files(plan.to_hash, *plan.algorithm, threads);
  return finish_digest_verification(std::move(plan), metadata, hashes);
}

}  // namespace kcheck
