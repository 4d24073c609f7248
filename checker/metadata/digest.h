#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/core/audit_deadline.h"
#include "checker/core/file_facts_cache.h"
#include "checker/core/tree_facts.h"

namespace kcheck {

// The hash algorithms `digest.algorithm` may name (build-variants.md §4.5).
enum class DigestAlgorithm { sha256, sha512 };

std::optional<DigestAlgorithm> parse_digest_algorithm(std::string_view name);  // exact lowercase names
std::string_view to_string(DigestAlgorithm algorithm);

// The files of a variant that the digest covers, by variant-relative path
// (byte order): every entry that resolves to a regular file, except
// metadata.json and metadata.json.sigstore in the variant root, anything
// under a `__pycache__` component, and `*.pyc`.
std::vector<const FileEntry*> digest_covered_files(const VariantFacts& variant);

// Hashes of the given files, computed in parallel (`threads` = 0: one per
// hardware thread); each file is mapped and hashed once.
struct FileHashes {
  std::map<std::string, std::string> hashes;  // relative path -> standard base64
  std::map<std::string, std::string> errors;  // relative path -> why it could not be read
};
// With `known` (a facts cache), SHA-256 hashes come from it when it has them.
// Throws AuditTimeout when `deadline` passes between two files.
FileHashes hash_files(const std::vector<const FileEntry*>& files, DigestAlgorithm algorithm, unsigned threads,
                      FileFactsCache* known = nullptr, const AuditDeadline& deadline = AuditDeadline{});

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

// Verifies `metadata.digest` against the variant's files in upstream order:
// the algorithm, then each recorded path missing or mismatched, then each
// covered file not recorded. Only recorded files present on disk are hashed.
// Throws AuditTimeout when `deadline` passes between two files.
DigestCheck verify_digest(const VariantFacts& variant, const MetadataFacts& metadata, unsigned threads,
                          FileFactsCache* known = nullptr, const AuditDeadline& deadline = AuditDeadline{});

}  // namespace kcheck
