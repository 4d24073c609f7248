#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace kcheck {

// A control group of its own for one contained run, with the `pids`
// controller's limit on how many processes (threads) it may hold: the bound
// on a fork bomb where RLIMIT_NPROC cannot be one (it never applies to root).
// Made where kcheck may make one: a cgroup v1 `pids` hierarchy, or a cgroup v2
// directory whose children have the `pids` controller, writable by kcheck.
// The group is removed when this object goes (its processes have ended by
// then: the run's keeper killed them).
class ProcessCountGroup {
 public:
  // nullptr where no group can be made here; `why_not` then says why.
  static std::unique_ptr<ProcessCountGroup> create(std::uint64_t max_processes, std::string& why_not);
  ~ProcessCountGroup();
  ProcessCountGroup(const ProcessCountGroup&) = delete;
  ProcessCountGroup& operator=(const ProcessCountGroup&) = delete;

  // The group's `cgroup.procs`: writing "0" to it moves the writer in, and
  // every process it starts afterwards is born inside.
  const std::string& procs_file() const { return procs_file_; }

 private:
  explicit ProcessCountGroup(std::filesystem::path directory);
  std::filesystem::path directory_;
  std::string procs_file_;
};

}  // namespace kcheck
