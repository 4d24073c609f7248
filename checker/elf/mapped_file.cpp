#include "checker/elf/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kcheck {
namespace {

std::string system_error(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& file) {
  const int descriptor = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);  // a FIFO must not block
  if (descriptor < 0) {
    error_ = system_error("cannot open");
    return;
  }
  struct stat status {};
  if (::fstat(descriptor, &status) != 0) {
    error_ = system_error("cannot stat");
  } else if (!S_ISREG(status.st_mode)) {
    error_ = "not a regular file";
  } else if (status.st_size > 0) {
    void* address = ::mmap(nullptr, static_cast<std::size_t>(status.st_size), PROT_READ, MAP_SHARED, descriptor, 0);
    if (address == MAP_FAILED) {
      error_ = system_error("cannot map");
    } else {
      data_ = static_cast<const std::byte*>(address);
      size_ = static_cast<std::size_t>(status.st_size);
    }
  }
  ::close(descriptor);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

void MappedFile::release(std::uint64_t offset, std::uint64_t size) const {
  if (data_ == nullptr || offset >= size_) return;
  const std::uint64_t page = page_size();
  const std::uint64_t end = std::min<std::uint64_t>(offset + size, size_);
  // Only whole pages inside the range: a neighbouring table may still be in use.
  const std::uint64_t first = (offset + page - 1) / page * page;
  const std::uint64_t last = end / page * page;
  if (last <= first) return;
  ::madvise(const_cast<std::byte*>(data_) + first, last - first, MADV_DONTNEED);
}

std::uint64_t MappedFile::page_size() { return static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)); }

}  // namespace kcheck
