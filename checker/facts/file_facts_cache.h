#pragma once
#include <optional>
#include <string>

#include "checker/facts/tree_facts.h"

namespace kcheck {

// Where collect_facts may find a file's content hash and its analysers'
// facts without reading the file again (`kcheck scan`'s content-addressed
// cache, checker/scan/). Every member is called from several threads at once.
// A miss is never an error: collect_facts then analyses the file and offers
// the result back with store_*.
class FileFactsCache {
 public:
  virtual ~FileFactsCache() = default;

  // Standard base64 SHA-256 of the file's bytes, the same value a sha256
  // `digest` records; nullopt when the file cannot be read.
  virtual std::optional<std::string> content_sha256(const FileEntry& file) = 0;

  // Facts of the file when they are known for its content. The returned
  // facts carry `file`'s own relative path.
  virtual std::optional<PythonFileFacts> load_python(const FileEntry& file) = 0;
  virtual std::optional<NativeModuleFacts> load_native(const FileEntry& file) = 0;

  virtual void store_python(const FileEntry& file, const PythonFileFacts& facts) = 0;
  virtual void store_native(const FileEntry& file, const NativeModuleFacts& facts) = 0;
};

}  // namespace kcheck
