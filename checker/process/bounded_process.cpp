#include "checker/process/bounded_process.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

#include "checker/process/executable_search.h"
#include "checker/process/scratch_usage.h"

extern char** environ;

namespace kcheck {

namespace {

// Starts argv[0] in its own process group with posix_spawn; the pid, or -1
// with the reason in `end.output`. In another directory through /bin/sh's
// `cd`: posix_spawn_file_actions_addchdir_np is glibc 2.29, newer than the
// floor kcheck itself keeps (manylinux_2_28).
pid_t spawn_in_process_group(const std::vector<std::string>& program_argv, int output_fd,
                             const std::filesystem::path& directory, ProcessEnd& end) {
  const std::filesystem::path program =
      program_argv.empty() ? std::filesystem::path() : find_executable(program_argv[0], std::getenv("PATH"));
  if (program.empty()) {
    end.output = "cannot start " + (program_argv.empty() ? std::string("nothing") : program_argv[0]) + ": " +
                 std::strerror(ENOENT);
    return -1;
  }
  std::vector<std::string> argv = program_argv;
  argv[0] = program.string();
  if (!directory.empty()) {
    argv = {"/bin/sh", "-c", "cd -- \"$1\" && shift && exec \"$@\"", "kcheck", directory.string()};
    argv.push_back(program.string());
    argv.insert(argv.end(), program_argv.begin() + 1, program_argv.end());
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, output_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, output_fd, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int spawn_error = ::posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawn_error == 0) return pid;
  end.output = "cannot start " + program_argv[0] + ": " + std::strerror(spawn_error);
  return -1;
}

// Past the timeout (or the scratch bound): a contained process's keeper is asked to kill everything
// its worker started and report; one that does not answer within a few
// seconds is killed with its group (and, in a PID namespace, everything in
// it; outside one, the worker's own group too, as the keeper reported it).
void stop_everything(pid_t pid, int report_fd, KeeperReport* report, int& status) {
  if (report) {
    const auto grace = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < grace) {
      stop_contained(pid);  // repeated: one sent just before the keeper waits may be missed
      if (::waitpid(pid, &status, WNOHANG) == pid) return;
      ::usleep(20000);
    }
    read_keeper_messages(report_fd, *report);
    if (report->worker_outside_namespace > 0) ::kill(-report->worker_outside_namespace, SIGKILL);
  }
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// A contained run's end as its keeper reported it: the worker's status (not
// the keeper's), what was left behind, what confined it.
void take_keeper_report(const KeeperReport& report, const std::string& program, ProcessEnd& end, int& status) {
  end.containment = report.in_force;
  end.leftover_processes = report.leftover_processes;
  end.captured_writes = report.captured_writes;
  end.first_captured_write = report.first_captured_write;
  end.full = report.full;
  if (!report.view_failed.empty()) {
    end.started = false;
    end.output = "cannot start " + program + ": " + report.view_failed;
  }
  if (report.exec_error) {
    end.started = false;
    end.output = "cannot start " + program + ": " + std::strerror(report.exec_error);
  }
  if (report.worker_status) status = *report.worker_status;
}

// The read end of a contained process's result pipe: records end with a NUL
// byte; the last complete one is the result.
struct ResultChannel {
  int fd = -1;
  std::string pending;
  bool discarding = false;  // the record being read is past the bound: skipped to its end

  // One read of what the pipe holds (it is ready); closes it at its end or on an error.
  void read_once(std::array<char, 65536>& buffer, std::size_t bound, ProcessEnd& end) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0) take(std::string_view(buffer.data(), static_cast<std::size_t>(n)), bound, end);
    if (n == 0 || (n < 0 && errno != EINTR)) {
      ::close(fd);
      fd = -1;
    }
  }

  void take(std::string_view bytes, std::size_t bound, ProcessEnd& end) {
    for (std::size_t end_of_record = bytes.find('\0'); !bytes.empty(); end_of_record = bytes.find('\0')) {
      const std::string_view part = bytes.substr(0, end_of_record);
      if (!discarding) pending.append(part);
      if (pending.size() > bound) {
        pending.clear();
        discarding = end.result_too_large = true;
      }
      if (end_of_record == std::string_view::npos) return;
      if (!discarding && !pending.empty()) {  // an empty record ends stray bytes
        end.result = std::move(pending);
        end.result_too_large = false;  // a later complete record stands
      }
      pending.clear();
      discarding = false;
      bytes.remove_prefix(end_of_record + 1);
    }
  }
};

}  // namespace

ProcessEnd run_bounded(const std::vector<std::string>& argv, const ProcessLimits& limits,
                       const std::filesystem::path& directory) {
  ProcessEnd end;
  int pipe_fds[2];
  if (argv.empty() || ::pipe2(pipe_fds, O_CLOEXEC) != 0) return end;
  const bool contained = limits.containment.has_value();
  ContainedStart start;  // its cgroup, if any, lasts until the keeper is reaped
  KeeperReport keeper_report;
  pid_t pid = -1;
  ResultChannel results;
  int result_fds[2] = {-1, -1};
  if (contained && limits.result_channel && ::pipe2(result_fds, O_CLOEXEC) != 0) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    end.output = "cannot start " + argv[0] + ": " + std::strerror(errno);
    return end;
  }
  results.fd = result_fds[0];
  if (contained) {
    start = start_contained(argv, *limits.containment, pipe_fds[1], result_fds[1]);
    if (result_fds[1] >= 0) ::close(result_fds[1]);
    if (start.keeper < 0) end.output = "cannot start " + argv[0] + ": " + std::strerror(start.error);
    pid = start.keeper;
  } else {
    pid = spawn_in_process_group(argv, pipe_fds[1], directory, end);
  }
  ::close(pipe_fds[1]);
  if (pid < 0) {
    ::close(pipe_fds[0]);
    if (results.fd >= 0) ::close(results.fd);
    return end;
  }
  end.started = true;

  // A hidden view bounds the working directory with a tmpfs; anything else
  // that lets the process write to the host's scratch is measured instead.
  std::optional<ScratchWatch> scratch_watch;
  if (contained)
    scratch_watch.emplace(limits.containment->scratch, limits.containment->work_bytes, limits.containment->work_files);
  const auto deadline = std::chrono::steady_clock::now() + limits.timeout;
  std::array<char, 65536> buffer{};
  bool pipe_open = true;
  bool reaped = false;
  int status = 0;
  // Reads what the pipes hold now (at most `reads` chunks), keeping the output's tail.
  const auto read_available = [&](int wait_ms, int reads) {
    for (int i = 0; i < reads && (pipe_open || results.fd >= 0); ++i) {
      pollfd descriptors[2] = {{pipe_open ? pipe_fds[0] : -1, POLLIN, 0}, {results.fd, POLLIN, 0}};
      int ready = ::poll(descriptors, 2, i == 0 ? wait_ms : 0);
      if (ready <= 0) return;
      if (descriptors[1].revents) results.read_once(buffer, limits.max_result, end);
      if (!pipe_open || !descriptors[0].revents) continue;
      ssize_t n = ::read(pipe_fds[0], buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        pipe_open = false;  // the result pipe may still hold a record
        continue;
      }
      end.output_bytes += static_cast<std::size_t>(n);
      end.output.append(buffer.data(), static_cast<std::size_t>(n));
      if (end.output.size() > limits.max_output) {
        end.output.erase(0, end.output.size() - limits.max_output);
        end.output_truncated = true;
      }
    }
  };
  while (!reaped) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      end.timed_out = true;
      stop_everything(pid, start.report_fd, contained ? &keeper_report : nullptr, status);
      break;
    }
    if (pipe_open || results.fd >= 0)
      read_available(static_cast<int>(std::min<long long>(left.count(), 50)), 16);
    else
      ::usleep(10000);
    // The child may have ended while a descendant it forked still holds the
    // pipe open: the run ends with the child, not with the pipe.
    if (::waitpid(pid, &status, WNOHANG) == pid) reaped = true;
    if (!reaped && scratch_watch && scratch_watch->passed_bound(std::chrono::steady_clock::now())) {
      end.scratch_overflow = scratch_watch->why();
      stop_everything(pid, start.report_fd, &keeper_report, status);
      break;
    }
  }
  if (reaped) read_available(0, 64);  // what the child wrote last
  ::close(pipe_fds[0]);
  // The result pipe, whole, also after a timeout: its last record says where
  // the process was. Everything that could write on it has ended (contained:
  // the keeper kills the rest), so it ends; bounded all the same.
  for (int chunk = 0; results.fd >= 0 && chunk < 4096; ++chunk) {
    pollfd descriptor{results.fd, POLLIN, 0};
    if (::poll(&descriptor, 1, 0) <= 0) break;
    results.read_once(buffer, limits.max_result, end);
  }
  if (results.fd >= 0) ::close(results.fd);
  // Descendants the child left behind in its group do not outlive the run
  // (a contained one's keeper has already killed all it left).
  if (contained) {
    read_keeper_messages(start.report_fd, keeper_report);  // the keeper has ended: all of them
    ::close(start.report_fd);
    take_keeper_report(keeper_report, argv[0], end, status);
  } else {
    ::kill(-pid, SIGKILL);
  }
  if (WIFEXITED(status)) end.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) end.signal = WTERMSIG(status);
  if (end.timed_out) end.signal = 0, end.exit_code = -1;
  return end;
}

}  // namespace kcheck
