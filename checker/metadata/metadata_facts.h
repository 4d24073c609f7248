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

// metadata.json as read from one variant, kept close to the file so every
// rule can name the key it judges.
struct MetadataFacts {
  bool present = false;
  std::string relative_path;  // relative to the audited root
  std::string parse_error;    // JSON syntax error (with line/column) when not valid JSON
  nlohmann::json document;    // the parsed document when valid JSON

  // Typed view of the well-known keys, filled when present with the right type.
  std::optional<std::string> id, name, license, upstream, source;
  std::optional<long long> version;
  std::optional<std::vector<std::string>> python_depends;
  std::optional<std::map<std::string, std::vector<std::string>>> python_depends_backends;
  std::optional<std::string> backend_type;
  std::optional<std::vector<std::string>> backend_archs;

  // Schema problems (missing key, wrong type) for KM002, and unknown keys.
  std::vector<MetadataProblem> schema_errors;
  std::vector<std::string> unknown_keys;
};

// Result of verifying `digest` against the files on disk (KM007).
struct DigestCheck {
  bool has_digest = false;
  std::string algorithm;
  std::vector<std::string> missing;     // listed, not on disk
  std::vector<std::string> mismatched;  // listed, hash differs
  std::vector<std::string> unlisted;    // on disk, not listed
  std::string error;                    // unknown algorithm, malformed digest object
};

}  // namespace kcheck
