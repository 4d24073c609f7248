#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/facts/tree_facts.h"

namespace kcheck {

// A compact binary encoding of one file's facts for the scan cache. Every
// facts struct's members are listed once (fact_codec.cpp), checked complete
// by the compiler, and serve both directions. A facts struct that changes
// changes the analyser build id in every cache key; kFactsEncodingVersion
// names the framing only (integers, strings, sequences, optionals): change
// it when that changes.
inline constexpr int kFactsEncodingVersion = 6;

// What the scan cache records of one file of a repository.
struct CachedFileFacts {
  std::string path;                   // absolute
  std::string identity;               // "<ino> <size> <mtime ns> <ctime ns>" when recorded
  std::optional<std::string> sha256;  // standard base64, when it was hashed
  // Recorded within the racy window of a change: the stat alone does not
  // vouch for the content, so the record serves only after the file's
  // SHA-256 is checked against `sha256`.
  bool racy = false;
  // The file's facts as encode_python_facts / encode_native_facts wrote
  // them (empty: none), decoded only for the files an audit asks about.
  std::string python_encoding;
  std::string native_encoding;
};

std::string encode_python_facts(const PythonFileFacts& facts);
std::string encode_native_facts(const NativeModuleFacts& facts);

// nullopt when the bytes are not a complete encoding (a truncated or foreign entry).
std::optional<PythonFileFacts> decode_python_facts(std::string_view bytes);
std::optional<NativeModuleFacts> decode_native_facts(std::string_view bytes);

// A repository's records, for its one cache entry.
std::string encode_cached_files(const std::vector<CachedFileFacts>& files);
std::optional<std::vector<CachedFileFacts>> decode_cached_files(std::string_view bytes);

}  // namespace kcheck
