#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

namespace kcheck {

// What a directory tree holds on disk: the blocks its files take (a sparse
// file counts what it allocates, not its length) and its entries, links not
// followed, read through directory descriptors. Counting stops past
// `max_entries` or 64 levels down, and anything that cannot be read but did
// not vanish (a directory made unreadable) leaves it incomplete (`complete`
// false): the watch then stops the process. A file unlinked while still open
// takes space no walk sees: the per-file size limit bounds each such file.
struct ScratchUsage {
  std::uint64_t bytes = 0;
  std::uint64_t entries = 0;
  bool complete = true;
};
ScratchUsage measure_scratch(const std::filesystem::path& directory, std::uint64_t max_entries);

// Where no tmpfs bounds what a contained process writes (the subreaper
// fallback of --no-sandbox, or a containment without a hidden view), its
// scratch directory is measured while it runs: past `bytes` more than it held
// at the start, or `entries` entries, the process is stopped and `why()` says
// so. What it writes between two measurements (every `interval`) may pass
// the bound: the run loop's check, not the file system's.
class ScratchWatch {
 public:
  ScratchWatch(std::filesystem::path scratch, std::uint64_t bytes, std::uint64_t entries);
  // Measures when a measurement is due; true once the bound is passed.
  bool passed_bound(std::chrono::steady_clock::time_point now);
  // "1200 MiB in 20 entries to its scratch directory, past kcheck's bound of 128 MiB and 16384 entries"
  const std::string& why() const { return why_; }

 private:
  std::filesystem::path scratch_;
  std::uint64_t start_bytes_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t entries_ = 0;
  std::chrono::steady_clock::time_point next_;
  std::string why_;
};

}  // namespace kcheck
