#pragma once
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checker/kinds/process_end.h"
#include "checker/process/process_count_group.h"

namespace kcheck {

// How a process that runs untrusted code (a kernel's worker, the Python
// import of its package) is confined. A small keeper process (kcheck's own
// code, not exec'd) starts it and cleans up after it:
// - where the machine allows, the keeper is born in new PID, mount and
//   network namespaces (and a user namespace when kcheck is not root): it is
//   the namespace's init, so when it ends the kernel kills every process the
//   worker started, setsid() daemons included. With Containment::visible (as
//   kcheck run sets it) the worker sees a fresh root that holds only what the
//   run needs, read-only, and size-bounded tmpfs mounts to write in
//   (process/sandbox_view.h): the rest of the machine is absent. Without it the
//   mounts it sees are read-only except the scratch directory, /proc is the
//   namespace's own, and the directories every process shares for writing
//   (/tmp, /var/tmp, /dev/shm) are overlays whose upper layer is a fresh
//   tmpfs. Either way what the worker writes there is captured, counted and
//   reported, and never reaches the machine (a write anywhere else outside
//   the scratch is refused);
// - where namespaces are refused, the keeper is a child subreaper: processes
//   orphaned below it are re-parented to it, and it kills every one it finds
//   (walking /proc) when the worker ends. Writes outside the scratch are then
//   not prevented.
// Either way the worker gets the rlimits below, HOME and TMPDIR pointing at
// the scratch, which is its working directory, and no capabilities when
// kcheck runs as root (so it cannot undo its mounts). Its process count is
// bounded by a cgroup of its own where kcheck may make one
// (process_count_group.h), else by RLIMIT_NPROC inside a user namespace.
struct Containment {
  std::filesystem::path scratch;     // must exist: the only writable directory (read-only, with `visible`: see there)
  std::chrono::seconds cpu_time{0};  // RLIMIT_CPU of each process (all its threads); 0: none
  std::uint64_t address_space = 0;   // RLIMIT_AS in bytes; 0: none (CUDA reserves terabytes of it)
  std::uint64_t file_size = 1ull << 30;  // RLIMIT_FSIZE: a larger write ends the writer with SIGXFSZ
  // Processes (threads) the worker's tree may hold, by every bound the machine
  // allows: a cgroup's pids.max (where kcheck may make a cgroup), the PID
  // namespace's own pid_max (Linux 6.14+; at least 301), and RLIMIT_NPROC,
  // which counts every process of a real user id and never applies to root,
  // so it is set only inside a user namespace of its own.
  std::uint64_t processes = 4096;
  bool count_group = true;  // false: no cgroup is made (tests the other bounds where cgroups work)
  // The shared writable directories captured (see above); those absent here are skipped.
  std::vector<std::filesystem::path> captured_directories = {"/tmp", "/var/tmp", "/dev/shm"};
  bool namespaces = true;           // false: only the subreaper fallback (tests it where namespaces work)
  bool network_namespace = true;    // false: the machine's network (--allow-network)
  bool require_namespaces = false;  // true: namespaces refused is an error (no fallback), as kcheck run does
  // Variables of kcheck's environment passed on beside the allow-list
  // (contained_environment), by name: what the user chose to give the kernel.
  std::vector<std::string> pass_environment;
  // The host paths the process may see, read-only (process/sandbox_view.h).
  // Set: every other path of the host is absent, the scratch is read-only
  // (kcheck's inputs) and its "work" subdirectory, a fresh tmpfs of
  // `work_bytes` and `work_files`, is the working directory, HOME and
  // TMPDIR; the shared directories are fresh tmpfs mounts of `file_size`
  // each. A view that cannot be built runs nothing. Where the namespaces
  // are refused and `require_namespaces` is false (--no-sandbox, kcheck's
  // own probes) there is no view: the subreaper fallback, which ContainmentInForce says.
  // Unset: the whole host read-only and the scratch writable.
  std::optional<std::vector<std::filesystem::path>> visible;
  std::uint64_t work_bytes = 1ull << 30;
  std::uint64_t work_files = 16384;
};

// Where the contained process starts, with HOME and TMPDIR: the scratch, or
// its "work" subdirectory when the host is hidden.
std::filesystem::path contained_working_directory(const Containment& containment);

// A contained process as started: its keeper (the process to wait for) and
// the pipe on which the keeper reports how the worker ended.
struct ContainedStart {
  pid_t keeper = -1;
  int report_fd = -1;                              // read end, close-on-exec
  int error = 0;                                   // errno when nothing could be started
  std::unique_ptr<ProcessCountGroup> count_group;  // kept until the keeper has been reaped
};

// Why this machine cannot give contained code namespaces of its own (PID,
// mount, network, and user when not root): "" when it can. Tried with a
// child that exits at once.
std::string sandbox_unavailable(bool network_namespace = true);

// The environment contained code gets from `parent` (kcheck's): only the
// variables that select devices, threads, locale, libraries and PATH (an
// allow-list: no token, key or other secret of the user's reaches a kernel),
// and those named in `also_passed`, with HOME, TMPDIR, TMP, TEMP and
// XDG_CACHE_HOME pointing at `scratch`.
std::vector<std::string> contained_environment(char** parent, const std::filesystem::path& scratch,
                                               const std::vector<std::string>& also_passed = {});

// Starts argv (argv[0] absolute or found on PATH) contained, with stdin from
// /dev/null and stdout and stderr on `output_fd`, and `result_fd` (when not
// -1) as its descriptor 3: the channel its results come back on, which no
// file the process can reach stands in for. The keeper leads its own process
// group.
ContainedStart start_contained(const std::vector<std::string>& argv, const Containment& containment, int output_fd,
                               int result_fd = -1);

// Asks the keeper to kill the worker and everything it started, then report
// (at the timeout). Safe to repeat.
void stop_contained(pid_t keeper);

// What the keeper reported: the worker's wait status, or why it could not start.
struct KeeperReport {
  std::optional<int> worker_status;     // as waitpid gives it
  int exec_error = 0;                   // errno of a failed execve
  int leftover_processes = 0;           // still running when the worker ended; killed
  int captured_writes = 0;              // files written (or removed) in the captured directories
  std::string first_captured_write;     // the first of them, "/tmp/x"
  pid_t worker_outside_namespace = -1;  // without a PID namespace: the worker's pid (its process group)
  std::string full;                     // a writable tmpfs the process filled ("/tmp", the work directory); "" if none
  std::string view_failed;              // why the hidden view could not be built: then nothing ran
  ContainmentInForce in_force;
};
// Adds what the keeper has written to `report_fd` so far (does not wait).
void read_keeper_messages(int report_fd, KeeperReport& report);

}  // namespace kcheck
