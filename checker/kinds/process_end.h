#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace kcheck {

// What confined one run, as the keeper found it.
struct ContainmentInForce {
  bool pid_namespace = false;  // everything the worker started ended with it
  bool user_namespace = false;
  bool read_only_outside_scratch = false;  // mount namespace with every other mount read-only
  bool writes_captured = false;            // writes to the shared directories (/tmp) are captured and counted
  bool process_limit = false;              // a cgroup's pids.max or RLIMIT_NPROC applies
  bool network_namespace = false;          // no network: its own namespace (only its own loopback), no host sockets
  bool host_hidden = false;                // only the paths the run needs are there (Containment::visible)
  friend bool operator==(const ContainmentInForce&, const ContainmentInForce&) = default;
  // "PID namespace, read-only outside the scratch directory, ..." for reports.
  std::string describe() const;
};

// How a child process ended: exit status or signal, timeout, output tail.
struct ProcessEnd {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;            // when it exited
  int signal = 0;                // when a signal ended it
  std::string output;            // stdout + stderr tail (bounded)
  std::size_t output_bytes = 0;  // everything it wrote, kept or not
  bool output_truncated = false;
  std::optional<ContainmentInForce> containment;  // when it ran contained: what confined it
  int leftover_processes = 0;        // contained: processes it started still running when it ended (then killed)
  int captured_writes = 0;           // contained: files it wrote in the captured shared directories (/tmp)
  std::string first_captured_write;  // the first of them
  std::string full;  // contained, host hidden: the writable tmpfs it filled ("/tmp", "its working directory")
  // Contained where no tmpfs bounds its scratch (ScratchWatch): why it was
  // stopped for writing past the bound there; "" when it was not.
  std::string scratch_overflow;
  // With ProcessLimits::result_channel: the last complete record the process
  // wrote on descriptor 3 (records end with a NUL byte); none if it wrote none.
  std::optional<std::string> result;
  bool result_too_large = false;  // a record past ProcessLimits::max_result was thrown away
};

// The last `count` lines of a process's output, trailing line ends dropped:
// what a report quotes of a failure (a traceback's last line, a compiler's
// last errors).
std::string last_output_lines(std::string output, std::size_t count = 1);

// "SIGSEGV (segmentation fault)", "signal 77".
std::string describe_signal(int signal);

}  // namespace kcheck
