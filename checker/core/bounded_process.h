#pragma once
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checker/core/process_containment.h"

namespace kcheck {

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

// Limits for a child process: a worker loading untrusted kernel code, or a
// build tool (with a long timeout).
struct ProcessLimits {
  std::chrono::milliseconds timeout{60000};
  std::size_t max_output = 64 * 1024;      // the tail is kept; the child is never blocked on its output
  std::optional<Containment> containment;  // untrusted code: see process_containment.h
  // Contained only: the process gets a pipe as descriptor 3 for its results
  // (ProcessEnd::result), so no file it can reach is ever read as one.
  bool result_channel = false;
  std::size_t max_result = 64u << 20;
};

// Runs argv[0] (an absolute path or looked up on PATH) in its own process
// group with stdin from /dev/null and stdout+stderr captured together. Past
// the timeout the whole group gets SIGKILL. Decodes the exit status or signal.
// With `limits.containment`, it runs contained instead (and `directory` is
// not used: the scratch is its working directory); past the timeout its
// keeper kills it and everything it started.
ProcessEnd run_bounded(const std::vector<std::string>& argv, const ProcessLimits& limits,
                       const std::filesystem::path& directory = {});

// The last `count` lines of a process's output, trailing line ends dropped:
// what a report quotes of a failure (a traceback's last line, a compiler's
// last errors).
std::string last_output_lines(std::string output, std::size_t count = 1);

// "SIGSEGV (segmentation fault)", "signal 77".
std::string describe_signal(int signal);

}  // namespace kcheck
