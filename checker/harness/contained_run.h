// What the processes `kcheck run` starts for a variant share: the worker
// (the kernel's code), the Python import of its package and the
// torch.compile helper each get a private scratch directory and the same
// containment (process/process_containment.h).
#pragma once
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checker/process/bounded_process.h"
#include "checker/facts/tree_facts.h"
#include "checker/harness/harness.h"

namespace kcheck {

// A fresh directory for one contained process: its only writable place,
// removed with whatever it holds when the process is done.
class PrivateScratch {
 public:
  explicit PrivateScratch(std::filesystem::path path);
  ~PrivateScratch();
  PrivateScratch(const PrivateScratch&) = delete;
  PrivateScratch& operator=(const PrivateScratch&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The host paths a process running for `variant` sees, read-only (the rest
// of the host is hidden, process/sandbox_view.h): the variant, the repository,
// the tests, kcheck's inputs beside `private_scratch`, the Python's and the
// worker's Torch directories, and HarnessOptions::visible_paths.
std::vector<std::filesystem::path> contained_visible_paths(const VariantFacts& variant, const HarnessOptions& options,
                                                           const std::filesystem::path& private_scratch);

// How a process running for `variant` is confined, ended after `timeout`:
// the host hidden but for contained_visible_paths, its scratch bounded to
// twice the file-size limit in all.
ProcessLimits contained_limits(const VariantFacts& variant, const HarnessOptions& options,
                               std::chrono::milliseconds timeout, const std::filesystem::path& private_scratch);

// Runs one of kcheck's own probes (kcheck_worker --info, the Torch probe of a
// Python) contained like the rest, in a scratch directory of its own that is
// removed after: no network, the environment's allow-list, the host
// read-only, and with `visible` everything else of it hidden. Where the
// machine refuses namespaces it still runs (a probe loads no repository
// file), in the subreaper fallback.
ProcessEnd run_contained_probe(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                               std::optional<std::vector<std::filesystem::path>> visible = std::nullopt);

// The directories `worker`'s RUNPATH names ($ORIGIN resolved), with the
// site-packages above a pip Torch's torch/lib (its libraries load the CUDA
// libraries of the nvidia packages beside it).
std::vector<std::filesystem::path> worker_library_directories(const std::filesystem::path& worker);

}  // namespace kcheck
