#include "checker/support/bounded_read.h"

#include <algorithm>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kcheck {

std::optional<std::string> read_bounded_file(const std::filesystem::path& file, std::uint64_t max_bytes,
                                             std::string& error) {
  const int descriptor = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (descriptor < 0) {
    error = std::string("cannot open: ") + std::strerror(errno);
    return std::nullopt;
  }
  struct stat status {};
  std::optional<std::string> text;
  if (::fstat(descriptor, &status) != 0) {
    error = std::string("cannot stat: ") + std::strerror(errno);
  } else if (!S_ISREG(status.st_mode)) {
    error = "not a regular file";
  } else if (static_cast<std::uint64_t>(status.st_size) > max_bytes) {
    error = std::to_string(status.st_size) + " bytes, above the bound of " + std::to_string(max_bytes) + " bytes";
  } else {
    text.emplace(static_cast<std::size_t>(status.st_size), '\0');
    std::size_t filled = 0;
    while (filled < text->size()) {
      const ssize_t n = ::read(descriptor, text->data() + filled, text->size() - filled);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error = std::string("cannot read: ") + std::strerror(errno);
        text.reset();
        break;
      }
      if (n == 0) break;  // shrank while reading: keep what is there
      filled += static_cast<std::size_t>(n);
    }
    if (text) text->resize(filled);
  }
  ::close(descriptor);
  return text;
}

bool is_inside(const std::filesystem::path& path, const std::filesystem::path& root) {
  const auto [root_end, path_at] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return root_end == root.end();
}

namespace fs = std::filesystem;

std::optional<std::string> read_inside_root(const fs::path& root, const fs::path& path, std::uint64_t max_bytes,
                                            std::string& problem) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);
  if (error || !fs::exists(status)) return std::nullopt;
  std::error_code target_error, root_error;
  const fs::path target = fs::canonical(path, target_error);
  const fs::path canonical_root = fs::canonical(root, root_error);
  if (target_error) {
    problem = "a link that leads nowhere (" + target_error.message() + ")";
    return std::nullopt;
  }
  if (root_error || !is_inside(target, canonical_root)) {
    problem =
        fs::is_symlink(status) ? "a link that leaves the repository; not read" : "outside the repository; not read";
    return std::nullopt;
  }
  return read_bounded_file(path, max_bytes, problem);
}

}  // namespace kcheck
