#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace kcheck {

// A file mapped read-only into memory. Pages are only read when touched, so
// a rule that needs a few tables of a 500 MB library costs a few pages.
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& file);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Empty when the file could not be opened or mapped.
  const std::string& error() const { return error_; }
  std::span<const std::byte> bytes() const { return {data_, size_}; }

  // Drops the pages of [offset, offset + size) from this process's resident
  // set (they stay in the page cache); for long scans such as fat binaries.
  // The bytes stay mapped and readable: a later read maps a page again
  // from the file (the walk inside the scan relies on it).
  void release(std::uint64_t offset, std::uint64_t size) const;

  // The granule release() drops: the system's page size.
  static std::uint64_t page_size();

 private:
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::string error_;
};

}  // namespace kcheck
