#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/facts/file_facts_cache.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {

// The hash algorithms `digest.algorithm` may name (build-variants.md §4.5).
enum class DigestAlgorithm { sha256, sha512 };

// Initialises OpenSSL for what kcheck does with it, hashing: without reading
// the system's openssl.cnf or registering every cipher and digest by name,
// which otherwise costs about a millisecond of every kcheck run (issue #17).
// Call once, first thing (main()); hashing works without it, only slower to start.
void initialise_hashing();

std::optional<DigestAlgorithm> parse_digest_algorithm(std::string_view name);  // exact lowercase names
std::string_view to_string(DigestAlgorithm algorithm);

// The files of a variant that the digest covers, by variant-relative path
// (byte order): every entry that resolves to a regular file, except
// metadata.json and metadata.json.sigstore in the variant root, anything
// under a `__pycache__` component, and `*.pyc`.
std::vector<const FileEntry*> digest_covered_files(const VariantFacts& variant);

// The standard base64 hash of one file's bytes (through a symlink), read
// through a bounded window; nullopt with the reason in `error` when it
// cannot be read.
std::optional<std::string> hash_file(const std::filesystem::path& path, DigestAlgorithm algorithm, std::string& error);

// A file's hash: from `known` (a facts cache) when it has its SHA-256, else
// hashed (hash_file).
std::optional<std::string> hash_of(const FileEntry& file, DigestAlgorithm algorithm, FileFactsCache* known,
                                   std::string& error);

// Hashes of the given files, each hashed once, largest first, on a pool of
// `threads` (0: one per hardware thread).
struct FileHashes {
  std::map<std::string, std::string> hashes;  // relative path -> standard base64
  std::map<std::string, std::string> errors;  // relative path -> why it could not be read
};
FileHashes hash_files(const std::vector<const FileEntry*>& files, DigestAlgorithm algorithm, unsigned threads);

// Standard base64 of the digest of `bytes` (for tests and small inputs).
std::string hash_bytes(std::string_view bytes, DigestAlgorithm algorithm);

// The `digest` object a builder writes into metadata.json for `variant`
// (§4.5: {"algorithm": ..., "files": {path: hash}}). Unreadable files are
// listed in `errors` and left out of the object.
struct ComputedDigest {
  nlohmann::json digest;
  std::map<std::string, std::string> errors;
};
ComputedDigest compute_variant_digest(const VariantFacts& variant, DigestAlgorithm algorithm, unsigned threads);

// Verifying `metadata.digest` against the variant's files, in two steps so
// that a caller can hash the files of many variants in one batch: the plan
// judges what needs no hashing and lists the files to hash (the recorded
// files present on disk); the finish judges their hashes.
struct DigestVerification {
  DigestCheck check;
  std::optional<DigestAlgorithm> algorithm;  // none: nothing to hash (no digest, or an unknown algorithm)
  std::vector<const FileEntry*> to_hash;
};
DigestVerification plan_digest_verification(const VariantFacts& variant, const MetadataFacts& metadata);
// Findings in upstream order: the algorithm, then each recorded path missing
// or mismatched, then each covered file not recorded.
DigestCheck finish_digest_verification(DigestVerification plan, const MetadataFacts& metadata,
                                       const FileHashes& hashes);

// Both steps, hashing on a pool of `threads` of its own.
DigestCheck verify_digest(const VariantFacts& variant, const MetadataFacts& metadata, unsigned threads);

}  // namespace kcheck
