#include "checker/process/process_containment.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "checker/process/executable_search.h"
#include "checker/process/mount_calls.h"
#include "checker/process/sandbox_view.h"
#include "checker/support/text_scan.h"

extern char** environ;

// Everything between the clone and the execve below runs in a copy of a
// process that may have other threads (a lock held by one of them stays held
// in the copy), so it only makes system calls: no allocation, no stdio, no
// C++ library beyond what is prepared before the clone.

namespace kcheck {
namespace {

using namespace mount_calls;

#ifndef SECBIT_NOROOT
#define SECBIT_NOROOT (1 << 0)
#define SECBIT_NOROOT_LOCKED (1 << 1)
#define SECBIT_NO_SETUID_FIXUP (1 << 2)
#define SECBIT_NO_SETUID_FIXUP_LOCKED (1 << 3)
#endif

// The keeper's messages on the report pipe, each one write (atomic: smaller
// than PIPE_BUF).
enum class Message : int {
  started = 0,
  exec_failed = 1,
  worker_status = 2,
  leftovers = 3,
  in_force = 4,
  captured_writes = 5,  // text: the first one's path
  worker_pid = 6,
  full = 7,         // text: the writable tmpfs the worker filled
  view_failed = 8,  // errno; text: the path the hidden view was being built at
};
struct ReportRecord {
  Message kind;
  int value;
  char text[248];
};

enum InForceBits : int {
  pid_ns = 1,
  user_ns = 2,
  read_only = 4,
  process_limit = 8,
  captured = 16,
  net_ns = 32,
  hidden = 64
};

// A shared writable directory (/tmp) as the namespace shows it: an overlay of
// the machine's directory under a fresh tmpfs layer that takes every write.
// Under a hidden view (sandbox_view.h) the directory is a fresh tmpfs of its
// own, counted whole.
struct WriteCapture {
  const char* directory = nullptr;
  int layer_fd = -1;   // the tmpfs holding "upper" and "work", open in the keeper only
  bool whole = false;  // the tmpfs is the directory itself (a hidden view's)
};
constexpr std::size_t kMaxCaptures = 8;
// The descriptor a worker's result channel is (start_contained's result_fd).
constexpr int kResultDescriptor = 3;

// Everything the keeper and the worker need, prepared before the clone.
struct KeeperPlan {
  const char* executable = nullptr;
  std::vector<char*> argv;
  std::vector<char*> envp;
  const char* scratch = nullptr;
  int output_fd = -1;
  int report_fd = -1;       // write end
  int report_read_fd = -1;  // kcheck's end, closed in the keeper: a write then fails once kcheck is gone
  bool want_user_namespace = false;
  std::string uid_map, gid_map;
  std::string count_group_procs;  // cgroup.procs of the run's own group, or ""
  std::string pid_max;            // the PID namespace's own pid_max (Linux 6.14+): the process bound
  std::vector<std::string> captured_directories;
  std::string capture_layer_options;  // tmpfs options of each capture's layer
  bool hide_host = false;             // build `view` and run in it
  ViewPlan view;
  std::string working;  // the worker's working directory
  int result_fd = -1;   // given to the worker as descriptor 3
  Containment limits;
};

// Set by the keeper's SIGTERM handler (a signal handler can only reach a
// static); only ever set in a keeper process, never in kcheck itself.
volatile sig_atomic_t stop_requested = 0;
void request_stop(int) { stop_requested = 1; }

bool send(int fd, Message kind, int value, const char* text = nullptr) {
  ReportRecord record{kind, value, {}};
  if (text)
    for (std::size_t i = 0; i + 1 < sizeof record.text && text[i]; ++i) record.text[i] = text[i];
  return ::write(fd, &record, sizeof record) == static_cast<ssize_t>(sizeof record);
}

bool write_whole_file(const char* path, const char* text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const auto length = static_cast<ssize_t>(std::strlen(text));
  const bool written = ::write(fd, text, static_cast<std::size_t>(length)) == length;
  ::close(fd);
  return written;
}

// Maps kcheck's own user and group into the new user namespace (the only
// mapping an unprivileged process may write for itself).
// In a network namespace of its own: its loopback up, so code that talks to
// itself over 127.0.0.1 (a test's local server, torch.distributed's store)
// works; the machine's loopback stays out of reach.
void bring_up_loopback() {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  ifreq request{};
  std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  if (::ioctl(fd, SIOCGIFFLAGS, &request) == 0) {
    request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
    ::ioctl(fd, SIOCSIFFLAGS, &request);
  }
  ::close(fd);
}

bool map_own_ids(const KeeperPlan& plan) {
  write_whole_file("/proc/self/setgroups", "deny");  // absent before Linux 3.19
  return write_whole_file("/proc/self/uid_map", plan.uid_map.c_str()) &&
         write_whole_file("/proc/self/gid_map", plan.gid_map.c_str());
}

// Makes `directory` an overlay of itself under a fresh tmpfs layer (see
// WriteCapture); on failure it is left as it was (read-only).
WriteCapture capture_writes(const char* directory, const char* layer_options) {
  WriteCapture capture;
  struct stat original {};
  if (::stat(directory, &original) != 0 || !S_ISDIR(original.st_mode)) return capture;
  const int lower = ::open(directory, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (lower < 0) return capture;
  if (::mount("tmpfs", directory, "tmpfs", MS_NOSUID | MS_NODEV, layer_options) != 0) {
    ::close(lower);
    return capture;
  }
  const int layer = ::open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  bool made =
      layer >= 0 && ::mkdirat(layer, "upper", original.st_mode & 07777) == 0 && ::mkdirat(layer, "work", 0700) == 0;
  if (made) {
    ::fchmodat(layer, "upper", original.st_mode & 07777, 0);  // as /tmp is: 1777, whatever the umask
    (void)!::fchownat(layer, "upper", original.st_uid, original.st_gid, 0);
    char lower_path[32];
    descriptor_path(lower, lower_path);
    char options[512] = "lowerdir=";
    made = append(options, sizeof options, lower_path) && append(options, sizeof options, ",upperdir=") &&
           append(options, sizeof options, directory) && append(options, sizeof options, "/upper,workdir=") &&
           append(options, sizeof options, directory) && append(options, sizeof options, "/work");
    // Inside a user namespace overlayfs keeps its metadata in user.* attributes.
    made = made && (::mount("overlay", directory, "overlay", MS_NOSUID | MS_NODEV, options) == 0 ||
                    (append(options, sizeof options, ",userxattr") &&
                     ::mount("overlay", directory, "overlay", MS_NOSUID | MS_NODEV, options) == 0));
  }
  ::close(lower);
  if (!made) {
    if (layer >= 0) ::close(layer);
    ::umount2(directory, MNT_DETACH);
    return capture;
  }
  capture.directory = directory;
  capture.layer_fd = layer;
  return capture;
}

// In the new mount namespace: nothing propagates back, /proc is this PID
// namespace's (writable but for the kernel's settings, mount_calls.h), and
// every mount is read-only but the scratch directory (and the captures, whose
// writes stay in the namespace); false where that could not be done.
bool confine_mounts(const KeeperPlan& plan, bool own_pid_namespace, WriteCapture (&captures)[kMaxCaptures],
                    std::size_t& capture_count, bool& pids_limited) {
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
  // Best effort; only a /proc of its own is made writable again below.
  const bool own_proc =
      own_pid_namespace && ::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0;
  pids_limited = own_proc && limit_namespace_pids("/proc", plan.pid_max.c_str());
  // Held before a capture may hide the scratch (one under /tmp).
  const int scratch = ::open(plan.scratch, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (scratch < 0) return false;
  bool confined = make_read_only("/", true) == 0;
  // Where a setting cannot be kept read-only, /proc stays so whole.
  if (confined && own_proc && make_writable("/proc") == 0 && !keep_proc_settings_read_only("/proc"))
    make_read_only("/proc", false);
  for (std::size_t i = 0; confined && i < plan.captured_directories.size() && capture_count < kMaxCaptures; ++i) {
    const WriteCapture capture =
        capture_writes(plan.captured_directories[i].c_str(), plan.capture_layer_options.c_str());
    if (capture.layer_fd >= 0) captures[capture_count++] = capture;
  }
  char scratch_path[32];
  descriptor_path(scratch, scratch_path);
  confined = confined && ::mount(scratch_path, plan.scratch, nullptr, MS_BIND | MS_REC, nullptr) == 0 &&
             make_writable(plan.scratch) == 0;
  ::close(scratch);
  return confined;
}

// Builds the hidden view (sandbox_view.h) and enters it; on failure says
// where on the report pipe.
bool enter_view(KeeperPlan& plan, bool own_pid_namespace, WriteCapture (&captures)[kMaxCaptures],
                std::size_t& capture_count, int& work_fd, bool& pids_limited) {
  int captured_fds[kMaxCaptures];
  const char* captured_paths[kMaxCaptures];
  std::size_t count = 0;
  const char* failed_at = "";
  const int error = build_view(plan.view, own_pid_namespace, plan.pid_max.c_str(), failed_at, captured_fds,
                               captured_paths, kMaxCaptures, count, work_fd, pids_limited);
  if (error != 0) {
    send(plan.report_fd, Message::view_failed, error, failed_at);
    return false;
  }
  for (std::size_t i = 0; i < count; ++i) {
    captures[i].directory = captured_paths[i];
    captures[i].layer_fd = captured_fds[i];
    captures[i].whole = true;
  }
  capture_count = count;
  return true;
}

// Whether the tmpfs open as `fd` has no room left (blocks or files) now that
// the worker has ended: a heuristic, which misses a tmpfs filled and then
// emptied, or a failed fallocate (the space is given back). The bound holds
// either way; only the report of hitting it may be missed.
bool tmpfs_full(int fd) {
  struct statfs status {};
  return fd >= 0 && ::fstatfs(fd, &status) == 0 && (status.f_bavail == 0 || status.f_ffree == 0);
}

// Names the first writable tmpfs of a hidden view the worker filled.
void report_full_tmpfs(int report_fd, const WriteCapture (&captures)[kMaxCaptures], std::size_t capture_count,
                       int work_fd) {
  if (tmpfs_full(work_fd)) {
    send(report_fd, Message::full, 1, "its working directory");
    return;
  }
  for (std::size_t i = 0; i < capture_count; ++i)
    if (tmpfs_full(captures[i].layer_fd)) {
      send(report_fd, Message::full, 1, captures[i].directory);
      return;
    }
}

// Counts the files in a capture's upper layer (created, changed or removed
// through the overlay), keeping the first one's path in `first` ("" if none).
// A directory of another mount (a path of the view bound under /tmp) is not
// the capture's.
int count_captured(int directory_fd, char (&path)[4096], int depth, char (&first)[248]) {
  struct stat capture_status {};
  if (::fstat(directory_fd, &capture_status) != 0) return 0;
  int files = 0;
  alignas(8) char entries[4096];
  long size = 0;
  while ((size = ::syscall(SYS_getdents64, directory_fd, entries, sizeof entries)) > 0) {
    for (long offset = 0; offset < size;) {
      const char* entry = entries + offset;
      unsigned short length = 0;
      std::memcpy(&length, entry + 16, sizeof length);  // d_reclen, after d_ino and d_off
      const unsigned char type = static_cast<unsigned char>(entry[18]);
      const char* name = entry + 19;
      offset += length;
      if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
      // A mount point of the view (a directory or file bound under /tmp) is not the capture's.
      struct stat entry_status {};
      if (::fstatat(directory_fd, name, &entry_status, AT_SYMLINK_NOFOLLOW) == 0 &&
          entry_status.st_dev != capture_status.st_dev)
        continue;
      const std::size_t parent_length = std::strlen(path);
      const bool fits = append(path, sizeof path, "/") && append(path, sizeof path, name);
      const int child = type == DT_DIR && depth < 32
                            ? ::openat(directory_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                            : -1;
      if (child >= 0) {
        files += count_captured(child, path, depth + 1, first);
        ::close(child);
      } else {
        ++files;
        if (first[0] == '\0') {
          first[0] = '\0';
          append(first, sizeof first, fits ? path : "(a path too long to show)");
        }
      }
      path[parent_length] = '\0';
    }
  }
  return files;
}

// Reports what each capture took and releases it.
void report_captured_writes(int report_fd, WriteCapture (&captures)[kMaxCaptures], std::size_t capture_count) {
  int files = 0;
  char first[248] = "";
  for (std::size_t i = 0; i < capture_count; ++i) {
    const int upper =
        ::openat(captures[i].layer_fd, captures[i].whole ? "." : "upper", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (upper >= 0) {
      char path[4096] = "";
      append(path, sizeof path, captures[i].directory);
      files += count_captured(upper, path, 0, first);
      ::close(upper);
    }
    ::close(captures[i].layer_fd);
  }
  send(report_fd, Message::captured_writes, files, first);
}

// Moves the keeper (and so everything it starts) into the run's own cgroup.
bool join_count_group(const KeeperPlan& plan) {
  if (plan.count_group_procs.empty()) return false;
  const int fd = ::open(plan.count_group_procs.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool joined = ::write(fd, "0", 1) == 1;
  ::close(fd);
  return joined;
}

void set_limit(int resource, std::uint64_t value) {
  const rlimit limit{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
  ::setrlimit(resource, &limit);
}

// A root worker keeps no capability, even across execve: it cannot remount,
// ptrace or signal outside its namespace, or raise its limits.
void drop_root_capabilities() {
  if (::geteuid() != 0) return;
  ::prctl(PR_SET_SECUREBITS,
          SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED);
  for (int capability = 0; capability <= 63; ++capability) ::prctl(PR_CAPBSET_DROP, capability, 0, 0, 0);
  ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[2] = {};
  ::syscall(SYS_capset, &header, none);
}

// Closes the descriptors from `first` to `last` (close_range, Linux 5.9;
// else one by one up to the descriptor limit).
void close_descriptors(unsigned first, unsigned last) {
  if (first > last) return;
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, first, last, 0u) == 0) return;
#endif
  rlimit limit{};
  const unsigned bound = ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                             ? static_cast<unsigned>(std::min<rlim_t>(limit.rlim_cur, 1u << 20))
                             : 65536u;
  for (unsigned fd = first; fd <= last && fd < bound; ++fd) ::close(static_cast<int>(fd));
}

// Every descriptor from `first` on but `kept` (the report pipe, close-on-exec:
// open until the execve, for saying why it failed).
void close_descriptors_from(int first, int kept) {
  const auto start = static_cast<unsigned>(first);
  if (kept < first) return close_descriptors(start, ~0u);
  close_descriptors(start, static_cast<unsigned>(kept) - 1);
  close_descriptors(static_cast<unsigned>(kept) + 1, ~0u);
}

[[noreturn]] void exec_worker(const KeeperPlan& plan, bool process_limit) {
  // A session of its own: no controlling terminal (it cannot write to the
  // user's terminal nor push keystrokes into it), and its own process group.
  if (::setsid() < 0) ::setpgid(0, 0);
  ::signal(SIGTERM, SIG_DFL);
  set_limit(RLIMIT_CORE, 0);  // no core file written anywhere
  set_limit(RLIMIT_FSIZE, plan.limits.file_size);
  if (plan.limits.cpu_time.count() > 0) set_limit(RLIMIT_CPU, static_cast<std::uint64_t>(plan.limits.cpu_time.count()));
  if (plan.limits.address_space > 0) set_limit(RLIMIT_AS, plan.limits.address_space);
  if (process_limit) set_limit(RLIMIT_NPROC, plan.limits.processes);
  drop_root_capabilities();
  ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (plan.result_fd >= 0) {
    // dup2 onto itself would keep close-on-exec set.
    const bool given = plan.result_fd == kResultDescriptor
                           ? ::fcntl(kResultDescriptor, F_SETFD, 0) == 0
                           : ::dup2(plan.result_fd, kResultDescriptor) == kResultDescriptor;
    if (!given) {
      send(plan.report_fd, Message::exec_failed, errno);
      ::_exit(127);
    }
  }
  // Nothing kcheck inherited without close-on-exec (a CI runner's descriptor,
  // a shell's redirection) reaches the worker: a directory descriptor would
  // lead past the view.
  close_descriptors_from(plan.result_fd >= 0 ? kResultDescriptor + 1 : STDERR_FILENO + 1, plan.report_fd);
  if (::chdir(plan.working.c_str()) == 0) ::execve(plan.executable, plan.argv.data(), plan.envp.data());
  send(plan.report_fd, Message::exec_failed, errno);
  ::_exit(127);
}

// The children of this process, from /proc (raw getdents64: no allocation).
// Returns how many pids were written to `children`.
std::size_t list_children(pid_t parent, pid_t* children, std::size_t capacity) {
  std::size_t found = 0;
  const int proc = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return 0;
  alignas(8) char entries[8192];
  long size = 0;
  while (found < capacity && (size = ::syscall(SYS_getdents64, proc, entries, sizeof entries)) > 0) {
    for (long offset = 0; offset < size && found < capacity;) {
      const char* entry = entries + offset;
      unsigned short length = 0;
      std::memcpy(&length, entry + 16, sizeof length);  // d_reclen, after d_ino and d_off
      const char* name = entry + 19;
      offset += length;
      pid_t pid = 0;
      for (const char* c = name; *c; ++c) pid = *c >= '0' && *c <= '9' ? pid * 10 + (*c - '0') : -1;
      if (pid <= 0) continue;
      char path[40] = "/proc/";
      char digits[16];
      int count = 0;
      for (pid_t rest = pid; rest > 0; rest /= 10) digits[count++] = static_cast<char>('0' + rest % 10);
      std::size_t at = 6;
      while (count > 0) path[at++] = digits[--count];
      std::memcpy(path + at, "/stat", 6);
      const int stat = ::open(path, O_RDONLY | O_CLOEXEC);
      if (stat < 0) continue;
      char text[512];
      const ssize_t read = ::read(stat, text, sizeof text - 1);
      ::close(stat);
      if (read <= 0) continue;
      text[read] = '\0';
      // "pid (comm) S ppid ...": the command may hold ')' and spaces.
      const char* close = nullptr;
      for (const char* c = text; *c; ++c)
        if (*c == ')') close = c;
      if (!close || close[1] == '\0' || close[2] == '\0' || close[3] == '\0') continue;
      pid_t parent_pid = 0;
      for (const char* c = close + 4; *c >= '0' && *c <= '9'; ++c) parent_pid = parent_pid * 10 + (*c - '0');
      if (parent_pid == parent) children[found++] = pid;
    }
  }
  ::close(proc);
  return found;
}

// Reaps children that have already ended (not counted as left behind).
void reap_ended() {
  int status = 0;
  while (::waitpid(-1, &status, WNOHANG) > 0) {
  }
}

// Kills what the worker left running and returns how many processes that was.
int kill_leftovers(bool own_pid_namespace) {
  reap_ended();
  int killed = 0;
  int status = 0;
  if (own_pid_namespace) {
    // The namespace's init may signal every process in it at once.
    if (::kill(-1, SIGKILL) != 0) return 0;
    while (::waitpid(-1, &status, 0) > 0) ++killed;
    return killed;
  }
  // A subreaper: orphans come to it. Kill its children until none is left
  // (each killed one's own children come next); bounded for a fork loop.
  pid_t children[256];
  for (int round = 0; round < 10000; ++round) {
    const std::size_t count = list_children(::getpid(), children, 256);
    if (count == 0) break;
    for (std::size_t i = 0; i < count; ++i) ::kill(children[i], SIGKILL);
    for (std::size_t i = 0; i < count; ++i)
      if (::waitpid(children[i], &status, 0) > 0) ++killed;
  }
  return killed;
}

[[noreturn]] void run_keeper(KeeperPlan& plan, int clone_flags) {
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction on_stop = {};
  on_stop.sa_handler = request_stop;  // no SA_RESTART: waitpid returns
  ::sigaction(SIGTERM, &on_stop, nullptr);
  ::signal(SIGPIPE, SIG_IGN);  // a write to a kcheck that is gone fails (below) instead
  ::setpgid(0, 0);
  ::close(plan.report_read_fd);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // kcheck gone: the keeper, and with a PID namespace all, go too
  // kcheck may have ended before that took effect: then nobody reads the pipe.
  if (!send(plan.report_fd, Message::started, 0)) ::_exit(125);
  const bool own_pid_namespace = clone_flags & CLONE_NEWPID;
  int in_force = own_pid_namespace ? pid_ns : 0;
  if (clone_flags & CLONE_NEWNET) in_force |= net_ns;  // only a loopback of its own: no network, no host sockets
  const bool in_count_group = join_count_group(plan);
  if (in_count_group) in_force |= process_limit;
  if (clone_flags & CLONE_NEWUSER) {
    if (!map_own_ids(plan)) {
      send(plan.report_fd, Message::exec_failed, EPERM);
      ::_exit(126);
    }
    in_force |= user_ns;
  }
  if (clone_flags & CLONE_NEWNET) bring_up_loopback();
  WriteCapture captures[kMaxCaptures];
  std::size_t capture_count = 0;
  bool pids_limited = false;
  int work_fd = -1;
  if ((clone_flags & CLONE_NEWNS) && plan.hide_host) {
    // Fails closed: a view that cannot be built runs nothing.
    if (!enter_view(plan, own_pid_namespace, captures, capture_count, work_fd, pids_limited)) ::_exit(126);
    in_force |= read_only | hidden;
    if (capture_count > 0) in_force |= captured;
  } else if ((clone_flags & CLONE_NEWNS) &&
             confine_mounts(plan, own_pid_namespace, captures, capture_count, pids_limited)) {
    in_force |= read_only;
    if (capture_count > 0) in_force |= captured;
  }
  if (pids_limited) in_force |= process_limit;
  if (!own_pid_namespace) ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // Without a group of its own, RLIMIT_NPROC in a user namespace (never for
  // root): also beside the namespace's pid_max, which is never below 301.
  const bool nproc_limit = !in_count_group && (in_force & user_ns) && ::getuid() != 0;
  if (nproc_limit) in_force |= process_limit;
  send(plan.report_fd, Message::in_force, in_force);

  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null < 0 || ::dup2(null, STDIN_FILENO) < 0 || ::dup2(plan.output_fd, STDOUT_FILENO) < 0 ||
      ::dup2(plan.output_fd, STDERR_FILENO) < 0)
    ::_exit(126);
  // The worker cannot reach the keeper's descriptors through /proc, nor
  // ptrace it. Only now: a process that is not dumpable cannot write its own
  // uid_map (its /proc files belong to root), which an unprivileged keeper does above.
  ::prctl(PR_SET_DUMPABLE, 0);
  const pid_t worker = ::fork();
  if (worker < 0) ::_exit(126);
  if (worker == 0) exec_worker(plan, nproc_limit);
  // Not setpgid(worker, worker) here: a group leader cannot setsid(). A stop
  // before the worker's own call still reaches it (kill(worker) below).
  // Outside a PID namespace kcheck can kill the worker's group itself should this keeper not answer.
  if (!own_pid_namespace) send(plan.report_fd, Message::worker_pid, worker);

  int status = 0;
  bool worker_ended = false;
  bool stopped = false;
  while (!worker_ended) {
    if (stop_requested && !stopped) {
      ::kill(-worker, SIGKILL);
      ::kill(worker, SIGKILL);
      stopped = true;
    }
    int child_status = 0;
    const pid_t ended = ::waitpid(-1, &child_status, 0);
    if (ended == worker) {
      status = child_status;
      worker_ended = true;
    } else if (ended < 0 && errno != EINTR) {
      break;
    }
  }
  if (worker_ended) send(plan.report_fd, Message::worker_status, status);
  send(plan.report_fd, Message::leftovers, kill_leftovers(own_pid_namespace));
  if (in_force & hidden) report_full_tmpfs(plan.report_fd, captures, capture_count, work_fd);
  if (in_force & captured) report_captured_writes(plan.report_fd, captures, capture_count);
  ::_exit(0);
}

// Whether this kernel gives each PID namespace its own pid_max (Linux 6.14).
bool pid_max_per_namespace() {
  utsname name{};
  if (::uname(&name) != 0) return false;
  const std::string_view release(name.release);  // "6.18.44-fc-v669"
  const std::size_t major_end = release.find('.');
  if (major_end == std::string_view::npos) return false;
  const std::string_view rest = release.substr(major_end + 1);
  const std::size_t minor_end = std::min(rest.find_first_not_of("0123456789"), rest.size());
  const auto major = text::parse_decimal<unsigned>(release.substr(0, major_end));
  const auto minor = text::parse_decimal<unsigned>(rest.substr(0, minor_end));
  return major && minor && (*major > 6 || (*major == 6 && *minor >= 14));
}

// argv[0] as execve needs it: a path, looked up on PATH when it has no '/'.
std::string resolve_executable(const std::string& name) {
  const std::filesystem::path found = find_executable(name, std::getenv("PATH"));
  return found.empty() ? name : found.string();
}

// Whether kcheck's variable `name` is passed to contained code: what
// selects devices, threads, locale and libraries, never credentials
// (HF_TOKEN, cloud keys, CI secrets) or anything else of the user's.
// The variables that point at the scratch, whatever kcheck's own are.
constexpr std::string_view kScratchVariables[] = {"HOME", "TMPDIR", "TMP", "TEMP", "XDG_CACHE_HOME"};

bool passed_to_contained(std::string_view name) {
  static constexpr std::string_view kNames[] = {"PATH",
                                                "LANG",
                                                "LANGUAGE",
                                                "TZ",
                                                "TERM",
                                                "LD_LIBRARY_PATH",
                                                "KCHECK_LIBPYTHON",
                                                "VIRTUAL_ENV",
                                                "HF_HUB_OFFLINE",
                                                "CUDA_VISIBLE_DEVICES",
                                                "CUDA_HOME",
                                                "CUDA_PATH",
                                                "CUDA_MODULE_LOADING",
                                                "CUDA_LAUNCH_BLOCKING",
                                                "NVIDIA_VISIBLE_DEVICES",
                                                "NVIDIA_DRIVER_CAPABILITIES",
                                                "HIP_VISIBLE_DEVICES",
                                                "ROCR_VISIBLE_DEVICES",
                                                "OMP_NUM_THREADS",
                                                "MKL_NUM_THREADS",
                                                "OPENBLAS_NUM_THREADS",
                                                "PYTORCH_CUDA_ALLOC_CONF",
                                                "TORCH_CUDA_ARCH_LIST"};
  if (name.starts_with("LC_")) return true;
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// What a hidden view shows: the paths kcheck named, the program (as given
// and as its link resolves), and the directories the environment
// passed on names (LD_LIBRARY_PATH, CUDA_HOME, CUDA_PATH, VIRTUAL_ENV).
ViewLayout view_layout(const Containment& containment, const std::string& executable,
                       const std::vector<std::string>& environment) {
  ViewLayout layout;
  layout.visible = *containment.visible;
  namespace fs = std::filesystem;
  const fs::path program(executable);
  layout.visible.push_back(program);  // visible_roots adds the file its link resolves to

  for (const std::string& variable : environment) {
    const std::string_view entry(variable);
    const std::size_t equals = entry.find('=');
    const std::string_view name = entry.substr(0, equals);
    if (equals == std::string_view::npos ||
        (name != "LD_LIBRARY_PATH" && name != "CUDA_HOME" && name != "CUDA_PATH" && name != "VIRTUAL_ENV"))
      continue;
    std::string_view value = entry.substr(equals + 1);
    while (!value.empty()) {
      const std::size_t colon = value.find(':');
      const std::string_view directory = value.substr(0, colon);
      if (!directory.empty() && directory.front() == '/') layout.visible.emplace_back(directory);
      value = colon == std::string_view::npos ? std::string_view() : value.substr(colon + 1);
    }
  }
  layout.scratch = containment.scratch;
  layout.work = contained_working_directory(containment);
  layout.work_bytes = containment.work_bytes;
  layout.work_files = containment.work_files;
  layout.shared_bytes = std::max<std::uint64_t>(containment.file_size, 1u << 20);
  return layout;
}

pid_t clone_process(int flags) {
  // Fork-like (no new stack): the child continues here on a copy of this one.
  return static_cast<pid_t>(
      ::syscall(SYS_clone, static_cast<unsigned long>(flags) | SIGCHLD, nullptr, nullptr, nullptr, nullptr));
}

}  // namespace

std::vector<std::string> contained_environment(char** parent, const std::filesystem::path& scratch,
                                               const std::vector<std::string>& also_passed) {
  std::vector<std::string> environment;
  for (char** entry = parent; entry && *entry; ++entry) {
    const std::string_view variable(*entry);
    const std::string_view name = variable.substr(0, variable.find('='));
    const bool scratch_variable = std::find(std::begin(kScratchVariables), std::end(kScratchVariables), name) !=
                                  std::end(kScratchVariables);  // set below, once
    if (!scratch_variable &&
        (passed_to_contained(name) || std::find(also_passed.begin(), also_passed.end(), name) != also_passed.end()))
      environment.emplace_back(variable);
  }
  for (std::string_view name : kScratchVariables) environment.push_back(std::string(name) + "=" + scratch.string());
  return environment;
}

std::filesystem::path contained_working_directory(const Containment& containment) {
  return containment.visible ? containment.scratch / "work" : containment.scratch;
}

ContainedStart start_contained(const std::vector<std::string>& argv, const Containment& containment, int output_fd,
                               int result_fd) {
  ContainedStart start;
  int report[2];
  if (argv.empty() || ::pipe2(report, O_CLOEXEC) != 0) {
    start.error = argv.empty() ? EINVAL : errno;
    return start;
  }
  const std::string executable = resolve_executable(argv[0]);
  const std::filesystem::path working = contained_working_directory(containment);
  std::vector<std::string> environment = contained_environment(environ, working, containment.pass_environment);
  const std::string scratch = containment.scratch.string();
  KeeperPlan plan;
  plan.executable = executable.c_str();
  for (const std::string& arg : argv) plan.argv.push_back(const_cast<char*>(arg.c_str()));
  plan.argv.push_back(nullptr);
  for (std::string& variable : environment) plan.envp.push_back(variable.data());
  plan.envp.push_back(nullptr);
  plan.scratch = scratch.c_str();
  plan.working = working.string();
  plan.result_fd = result_fd;
  plan.output_fd = output_fd;
  plan.report_fd = report[1];
  plan.report_read_fd = report[0];
  plan.limits = containment;
  for (const std::filesystem::path& directory : containment.captured_directories)
    if (directory.is_absolute() && plan.captured_directories.size() < kMaxCaptures)
      plan.captured_directories.push_back(directory.string());
  // What the captures may hold: like one file at the file-size limit.
  plan.capture_layer_options =
      "size=" + std::to_string(std::max<std::uint64_t>(containment.file_size, 1u << 20)) + ",nr_inodes=16384,mode=0755";
  if (containment.visible && containment.namespaces) {
    std::error_code ignored;
    std::filesystem::create_directory(working, ignored);  // where the work tmpfs is mounted
    plan.hide_host = true;
    plan.view = plan_view(view_layout(containment, executable, environment));
  }
  plan.want_user_namespace = ::geteuid() != 0;  // root may make the other namespaces itself
  plan.uid_map = std::to_string(::getuid()) + " " + std::to_string(::getuid()) + " 1";
  plan.gid_map = std::to_string(::getgid()) + " " + std::to_string(::getgid()) + " 1";

  std::string why_no_group;
  if (containment.count_group) start.count_group = ProcessCountGroup::create(containment.processes, why_no_group);
  if (start.count_group) plan.count_group_procs = start.count_group->procs_file();
  // pid_max below 301 is refused (the first 300 pids are reserved after a wrap).
  if (containment.namespaces && pid_max_per_namespace())
    plan.pid_max = std::to_string(std::max<std::uint64_t>(containment.processes, 301));

  const int namespaces = CLONE_NEWPID | CLONE_NEWNS | (plan.want_user_namespace ? CLONE_NEWUSER : 0);
  auto refused = [] { return errno == EPERM || errno == EINVAL || errno == ENOSPC || errno == EUSERS; };
  // A network namespace of its own first; where only it is refused, the others still.
  int flags = containment.namespaces ? namespaces | (containment.network_namespace ? CLONE_NEWNET : 0) : 0;
  pid_t keeper = clone_process(flags);
  // Where the sandbox is required, a refusal is an error, never a weaker sandbox.
  if (keeper < 0 && flags && refused() && !containment.require_namespaces && containment.network_namespace) {
    flags = namespaces;
    keeper = clone_process(flags);
  }
  if (keeper < 0 && flags && refused() && !containment.require_namespaces) {
    flags = 0;  // namespaces refused here: a subreaper keeper
    keeper = clone_process(flags);
  }
  if (keeper == 0) run_keeper(plan, flags);
  const int clone_error = errno;
  ::close(report[1]);
  if (keeper < 0) {
    ::close(report[0]);
    start.error = clone_error;
    return start;
  }
  start.keeper = keeper;
  start.report_fd = report[0];
  return start;
}

std::string sandbox_unavailable(bool network_namespace) {
  const int flags =
      CLONE_NEWPID | CLONE_NEWNS | (network_namespace ? CLONE_NEWNET : 0) | (::geteuid() != 0 ? CLONE_NEWUSER : 0);
  const pid_t child = clone_process(flags);
  if (child == 0) ::_exit(0);
  if (child < 0)
    return std::string("this machine refuses new PID, mount") + (network_namespace ? ", network" : "") +
           (::geteuid() != 0 ? " and user" : "") + " namespaces (" + std::strerror(errno) + ")";
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return "";
}

void stop_contained(pid_t keeper) { ::kill(keeper, SIGTERM); }

void read_keeper_messages(int report_fd, KeeperReport& report) {
  ::fcntl(report_fd, F_SETFL, ::fcntl(report_fd, F_GETFL) | O_NONBLOCK);
  ReportRecord record{};
  while (::read(report_fd, &record, sizeof record) == static_cast<ssize_t>(sizeof record)) {
    record.text[sizeof record.text - 1] = '\0';
    switch (record.kind) {
      case Message::started:
        break;
      case Message::exec_failed:
        report.exec_error = record.value;
        break;
      case Message::worker_status:
        report.worker_status = record.value;
        break;
      case Message::leftovers:
        report.leftover_processes = record.value;
        break;
      case Message::captured_writes:
        report.captured_writes = record.value;
        report.first_captured_write = record.text;
        break;
      case Message::worker_pid:
        report.worker_outside_namespace = record.value;
        break;
      case Message::full:
        report.full = record.text;
        break;
      case Message::view_failed:
        report.view_failed =
            std::string("cannot show ") + record.text + " in the sandbox: " + std::strerror(record.value);
        break;
      case Message::in_force:
        report.in_force.pid_namespace = record.value & pid_ns;
        report.in_force.user_namespace = record.value & user_ns;
        report.in_force.read_only_outside_scratch = record.value & read_only;
        report.in_force.writes_captured = record.value & captured;
        report.in_force.process_limit = record.value & process_limit;
        report.in_force.network_namespace = record.value & net_ns;
        report.in_force.host_hidden = record.value & hidden;
        break;
    }
  }
}

}  // namespace kcheck
