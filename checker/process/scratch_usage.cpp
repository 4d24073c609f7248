#include "checker/process/scratch_usage.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include <system_error>
#include <utility>

namespace kcheck {

namespace fs = std::filesystem;

namespace {

constexpr auto kInterval = std::chrono::milliseconds(200);
constexpr int kMaxScratchDepth = 64;  // directories below the scratch; deeper is past the bound

std::string in_megabytes(std::uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

}  // namespace

namespace {

// Adds what the directory open as `fd` holds (closing it), descending
// `depth` more levels at most. An entry that vanished while it was read is
// skipped (a process may remove what it wrote); anything else that cannot be
// read — a directory made unreadable, a path too deep — makes the count
// incomplete, which the watch treats as past the bound (fail closed).
void add_directory(int fd, int depth, std::uint64_t max_entries, ScratchUsage& usage) {
  DIR* directory = ::fdopendir(fd);
  if (!directory) {
    ::close(fd);
    usage.complete = false;
    return;
  }
  while (usage.complete) {
    errno = 0;
    const dirent* entry = ::readdir(directory);
    if (!entry) {
      if (errno != 0) usage.complete = false;
      break;
    }
    const std::string_view name(entry->d_name);
    if (name == "." || name == "..") continue;
    if (++usage.entries > max_entries) {
      usage.complete = false;
      break;
    }
    struct stat status {};
    if (::fstatat(::dirfd(directory), entry->d_name, &status, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT) usage.complete = false;
      continue;
    }
    usage.bytes += static_cast<std::uint64_t>(status.st_blocks) * 512;
    if (!S_ISDIR(status.st_mode)) continue;
    if (depth == 0) {
      usage.complete = false;
      break;
    }
    const int child = ::openat(::dirfd(directory), entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child < 0) {
      if (errno != ENOENT) usage.complete = false;
      continue;
    }
    add_directory(child, depth - 1, max_entries, usage);
  }
  ::closedir(directory);
}

}  // namespace

ScratchUsage measure_scratch(const fs::path& directory, std::uint64_t max_entries) {
  ScratchUsage usage;
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    usage.complete = false;
    return usage;
  }
  add_directory(fd, kMaxScratchDepth, max_entries, usage);
  return usage;
}

ScratchWatch::ScratchWatch(fs::path scratch, std::uint64_t bytes, std::uint64_t entries)
    : scratch_(std::move(scratch)), bytes_(bytes), entries_(entries), next_(std::chrono::steady_clock::now()) {
  start_bytes_ = measure_scratch(scratch_, entries_).bytes;
}

bool ScratchWatch::passed_bound(std::chrono::steady_clock::time_point now) {
  if (!why_.empty()) return true;
  if (now < next_) return false;
  next_ = now + kInterval;
  const ScratchUsage usage = measure_scratch(scratch_, entries_);
  const std::uint64_t written = usage.bytes > start_bytes_ ? usage.bytes - start_bytes_ : 0;
  if (written <= bytes_ && usage.complete) return false;
  const std::string bound =
      "kcheck's bound of " + in_megabytes(bytes_) + " and " + std::to_string(entries_) + " entries";
  if (usage.complete)
    why_ = in_megabytes(written) + " in " + std::to_string(usage.entries) + " entries to its scratch directory, past " +
           bound;
  else if (usage.entries > entries_)
    why_ = "more than " + std::to_string(entries_) + " entries to its scratch directory, past " + bound;
  else
    why_ =
        "a part of its scratch directory kcheck cannot measure (unreadable, or more than 64 levels deep), "
        "against " +
        bound;
  return true;
}

}  // namespace kcheck
