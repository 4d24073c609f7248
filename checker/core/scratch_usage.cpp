#include "checker/core/scratch_usage.h"

#include <sys/stat.h>

#include <system_error>
#include <utility>

namespace kcheck {

namespace fs = std::filesystem;

namespace {

constexpr auto kInterval = std::chrono::milliseconds(200);

std::string in_megabytes(std::uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

}  // namespace

ScratchUsage measure_scratch(const fs::path& directory, std::uint64_t max_entries) {
  ScratchUsage usage;
  std::error_code error;
  fs::recursive_directory_iterator walk(directory, fs::directory_options::skip_permission_denied, error);
  for (; !error && walk != fs::recursive_directory_iterator(); walk.increment(error)) {
    if (++usage.entries > max_entries) {
      usage.complete = false;
      break;
    }
    struct stat status {};
    if (::lstat(walk->path().c_str(), &status) == 0) usage.bytes += static_cast<std::uint64_t>(status.st_blocks) * 512;
  }
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
  why_ = (usage.complete ? "" : "more than ") + in_megabytes(written) + " in " + (usage.complete ? "" : "more than ") +
         std::to_string(usage.entries) + " entries to its scratch directory, past kcheck's bound of " +
         in_megabytes(bytes_) + " and " + std::to_string(entries_) + " entries";
  return true;
}

}  // namespace kcheck
