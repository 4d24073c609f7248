// What the processes `kcheck run` starts for a variant share: the worker
// (the kernel's code), the Python import of its package and the
// torch.compile helper each get a private scratch directory and the same
// containment (core/process_containment.h).
#pragma once
#include <chrono>
#include <filesystem>

#include "checker/core/bounded_process.h"
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

// How a process running for `variant` is confined, ended after `timeout`.
ProcessLimits contained_limits(const VariantFacts& variant, const HarnessOptions& options,
                               std::chrono::milliseconds timeout, const std::filesystem::path& private_scratch);

}  // namespace kcheck
