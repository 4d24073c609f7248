#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kcheck {

// One problem met while reading metadata.json, with its JSON pointer.
struct MetadataProblem {
  std::string pointer;  // e.g. "/backend/type"
  std::string message;
};

// One `kernel-depends` entry (build-variants.md §4.7): exactly one of
// `version` and `revision` is set when the entry is well formed.
struct MetadataKernelDependency {
  std::string repo_id;
  std::optional<long long> version;
  std::optional<std::string> revision;
};

// Git state of one side of `provenance` (§4.4); `commit` is lowercase.
struct ProvenanceGitState {
  std::optional<std::string> commit;
  std::optional<bool> dirty;
};

struct ProvenanceFacts {
  std::optional<std::string> builder_version;
  ProvenanceGitState builder;
  std::optional<ProvenanceGitState> kernel;
};

// The `digest` object as recorded (§4.5); the algorithm is kept verbatim so
// that KM007 can name an unknown one.
struct DeclaredDigest {
  std::string algorithm;
  std::map<std::string, std::string> files;  // relative path -> base64 hash, byte order
};

// metadata.json as read from one variant, kept close to the file so every
// rule can name the key it judges.
struct MetadataFacts {
  bool present = false;
  std::string relative_path;   // relative to the audited root
  std::string parse_error;     // JSON syntax error (with line/column) when not valid JSON
  int parse_error_line = 0;    // 1-based; 0 when unknown
  int parse_error_column = 0;  // 1-based; 0 when unknown
  nlohmann::json document;     // the parsed document when valid JSON

  // Typed view of the well-known keys, filled when present with the right type.
  std::optional<std::string> id, name, license, upstream, source;
  std::optional<long long> version;
  std::optional<std::vector<std::string>> python_depends;
  std::optional<std::map<std::string, std::vector<std::string>>> python_depends_backends;
  std::optional<std::string> backend_type;
  std::optional<std::vector<std::string>> backend_archs;
  std::vector<MetadataKernelDependency> kernel_depends;
  std::optional<ProvenanceFacts> provenance;
  // `digest` key present and not null (even when malformed): KM007 does not
  // then say "no digest"; a malformed shape is KM002's.
  bool digest_declared = false;
  std::optional<DeclaredDigest> digest;  // set when the shape is valid

  // Schema problems (missing key, wrong type) for KM002, and unknown keys.
  std::vector<MetadataProblem> schema_errors;
  std::vector<std::string> unknown_keys;

  // Valid JSON with an object at the top: the typed view means something.
  bool readable() const { return present && parse_error.empty() && document.is_object(); }
};

// Result of verifying `digest` against the files on disk (KM007).
struct DigestCheck {
  bool has_digest = false;
  std::string algorithm;
  std::vector<std::string> missing;     // listed, not on disk
  std::vector<std::string> mismatched;  // listed, hash differs
  std::vector<std::string> unlisted;    // on disk, not listed
  std::vector<std::string> unreadable;  // listed and on disk but could not be read: "path: reason"
  std::string error;                    // unknown algorithm, malformed digest object

  bool clean() const {
    return error.empty() && missing.empty() && mismatched.empty() && unlisted.empty() && unreadable.empty();
  }
};

}  // namespace kcheck
