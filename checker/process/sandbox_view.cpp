#include "checker/process/sandbox_view.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <system_error>

#include "checker/process/mount_calls.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;
using namespace mount_calls;

// The system's own directories, shown whole (or as the links they are on a
// merged-/usr system).
constexpr const char* kSystemDirectories[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/sys"};
// What of /etc the dynamic loader, libc's name lookups and compilers read.
// Never ld.so.preload: the host's preloads stay out.
constexpr const char* kEtcFiles[] = {"ld.so.cache", "ld.so.conf", "ld.so.conf.d",  "alternatives",
                                     "passwd",      "group",      "nsswitch.conf", "localtime",
                                     "hosts",       "host.conf",  "os-release"};
// Paths the view makes itself: a visible path there would be hidden or unsafe.
constexpr const char* kViewOwned[] = {"/proc", "/dev"};
// Fresh tmpfs mounts of the view's own: what is under them may be shown, never
// the machine's whole directory.
constexpr const char* kViewTemporary[] = {"/tmp", "/var/tmp"};
// Device nodes every program may expect.
// Not tty: the worker has no controlling terminal, and must not reach the user's.
constexpr const char* kStandardDevices[] = {"null", "zero", "full", "random", "urandom"};

bool under(std::string_view path, std::string_view root) {
  return path == root || (path.size() > root.size() && path.starts_with(root) && path[root.size()] == '/');
}

std::size_t depth(std::string_view path) { return static_cast<std::size_t>(std::count(path.begin(), path.end(), '/')); }

std::string without_trailing_slash(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// The directory that will hold `path` (absolute, as the worker sees it),
// made and opened one component at a time under `staging` without following
// any link: a view path nested in a bind of a host directory (a scratch
// directory inside the repository) could otherwise be led by a link there to
// a place the bind was never meant to land. Returns an O_PATH descriptor of
// the parent and sets `name` to the last component (inside `buffer`); -1 with
// errno set when a component is missing and cannot be made, or is a link.
int open_parent(int staging, const char* path, char (&buffer)[4096], const char*& name) {
  buffer[0] = '\0';
  if (!append(buffer, sizeof buffer, path)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int parent = ::fcntl(staging, F_DUPFD_CLOEXEC, 0);
  char* component = buffer;
  while (*component == '/') ++component;
  for (char* slash = std::strchr(component, '/'); parent >= 0 && slash; slash = std::strchr(component, '/')) {
    *slash = '\0';
    int child = -1;
    if (::mkdirat(parent, component, 0755) == 0 || errno == EEXIST)
      child = ::openat(parent, component, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int saved = errno;
    ::close(parent);
    errno = saved;
    parent = child;
    component = slash + 1;
    while (*component == '/') ++component;
  }
  name = component;
  return parent;
}

// Opens `name` in `parent` without following a link: after a mount on it,
// the mount's root.
int open_placed(int parent, const char* name, int directory) {
  return ::openat(parent, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | directory);
}

// Mounts on the entry `target` (an O_PATH descriptor) through its descriptor
// path, so the kernel mounts on that very inode whatever a path would reach.
bool mount_on(int target, const char* source, const char* type, unsigned long flags, const char* data) {
  char path[32];
  descriptor_path(target, path);
  return ::mount(source, path, type, flags, data) == 0;
}

bool bind(int fd, int target, bool recursive) {
  char source[32];
  descriptor_path(fd, source);
  return mount_on(target, source, nullptr, MS_BIND | (recursive ? MS_REC : 0), nullptr);
}

// Makes the mount now on `name` in `parent` read-only.
bool placed_read_only(int parent, const char* name, bool recursive) {
  const int mounted = open_placed(parent, name, 0);
  const bool done = mounted >= 0 && make_read_only_at(mounted, recursive) == 0;
  const int saved = errno;
  if (mounted >= 0) ::close(mounted);
  errno = saved;
  return done;
}

// The namespace's own /proc at `staged`, its pid_max set (Linux 6.14+) and
// what reaches beyond its processes read-only.
bool mount_own_proc(int target, const char* staged, const char* pid_max, bool& pids_limited) {
  if (!mount_on(target, "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr)) return false;
  pids_limited = limit_namespace_pids(staged, pid_max);
  return keep_proc_settings_read_only(staged);
}

// Places one entry of the view under the staging root (descriptor `staging`).
// False with errno set when it could not be.
bool place(const ViewEntry& entry, int staging, const char* pid_max, bool& pids_limited, int& opened) {
  using Kind = ViewEntry::Kind;
  char buffer[4096];
  const char* name = nullptr;
  const int parent = open_parent(staging, entry.path.c_str(), buffer, name);
  if (parent < 0) return false;
  bool built = false;
  int target = -1;
  const auto made = [&](mode_t mode) { return ::mkdirat(parent, name, mode) == 0 || errno == EEXIST; };
  switch (entry.kind) {
    case Kind::symlink:
      built = ::symlinkat(entry.link.c_str(), parent, name) == 0;
      break;
    case Kind::bind_directory:
      built = made(0755) && (target = open_placed(parent, name, O_DIRECTORY)) >= 0 &&
              bind(entry.fd, target, entry.recursive) && placed_read_only(parent, name, true);
      break;
    case Kind::bind_file:
    case Kind::bind_device: {
      const int placeholder = ::openat(parent, name, O_CREAT | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
      // Read-only devices too: their data still flows (a read-only mount does
      // not stop writes to a device), but a root worker cannot chmod them.
      built = placeholder >= 0 && ::close(placeholder) == 0 && (target = open_placed(parent, name, 0)) >= 0 &&
              bind(entry.fd, target, false) && placed_read_only(parent, name, false);
      break;
    }
    case Kind::tmpfs:
      built = made(0755) && (target = open_placed(parent, name, O_DIRECTORY)) >= 0 &&
              mount_on(target, "tmpfs", "tmpfs", MS_NOSUID | MS_NODEV, entry.link.c_str());
      if (built && (entry.captured || entry.work))
        opened = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      break;
    case Kind::proc:
      built = made(0555) && (target = open_placed(parent, name, O_DIRECTORY)) >= 0 &&
              mount_own_proc(target, entry.staged.c_str(), pid_max, pids_limited);
      break;
  }
  const int saved = errno;
  if (target >= 0) ::close(target);
  ::close(parent);
  errno = built ? 0 : (saved ? saved : EIO);
  return built;
}

}  // namespace

std::vector<std::string> visible_roots(const std::vector<fs::path>& visible) {
  std::vector<std::string> candidates;
  for (const fs::path& path : visible) {
    if (path.empty() || !path.is_absolute()) continue;
    candidates.push_back(without_trailing_slash(path.lexically_normal().string()));
    std::error_code error;
    const fs::path canonical = fs::canonical(path, error);
    if (!error) candidates.push_back(without_trailing_slash(canonical.string()));
  }
  auto shown_otherwise = [](const std::string& path) {
    if (path == "/") return true;
    for (const char* system : kSystemDirectories)
      if (under(path, system)) return true;
    for (const char* owned : kViewOwned)
      if (under(path, owned)) return true;
    for (const char* temporary : kViewTemporary)
      if (path == temporary) return true;
    return false;
  };
  std::erase_if(candidates, shown_otherwise);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<std::string> roots;
  for (const std::string& path : candidates)  // sorted: an ancestor comes before what it holds
    if (std::none_of(roots.begin(), roots.end(), [&](const std::string& root) { return under(path, root); }))
      roots.push_back(path);
  return roots;
}

ViewPlan plan_view(const ViewLayout& layout) {
  ViewPlan plan;
  auto add = [&plan](ViewEntry::Kind kind, const std::string& path, std::string link = {}) -> ViewEntry& {
    ViewEntry entry;
    entry.kind = kind;
    entry.path = path;
    entry.staged = plan.staging + path;
    entry.link = std::move(link);
    return plan.entries.emplace_back(std::move(entry));
  };
  // A host path as a bind of what it is (following links), or nothing when absent.
  auto add_bind = [&add](const std::string& path) {
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0) return;
    if (S_ISDIR(status.st_mode)) add(ViewEntry::Kind::bind_directory, path);
    if (S_ISREG(status.st_mode)) add(ViewEntry::Kind::bind_file, path);
  };
  for (const char* directory : kSystemDirectories) {
    struct stat status {};
    if (::lstat(directory, &status) != 0) continue;
    if (S_ISLNK(status.st_mode)) {
      std::error_code error;
      const fs::path target = fs::read_symlink(directory, error);
      if (!error) add(ViewEntry::Kind::symlink, directory, target.string());
    } else if (S_ISDIR(status.st_mode)) {
      // /sys without what is mounted under it (debugfs, tracefs, efivars,
      // cgroups), which a root worker could read. Only where kcheck is root:
      // inside a user namespace a mount may not be bound without the mounts
      // it holds (EINVAL), and there those files are not the worker's to read.
      add(ViewEntry::Kind::bind_directory, directory).recursive =
          std::string_view(directory) != "/sys" || ::geteuid() != 0;
    }
  }
  for (const char* name : kEtcFiles) add_bind(std::string("/etc/") + name);
  // Debian's Python reads its sitecustomize from /etc/python3.N.
  if (DIR* etc = ::opendir("/etc")) {
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(etc))
      if (std::string_view(entry->d_name).starts_with("python")) names.emplace_back(entry->d_name);
    ::closedir(etc);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) add_bind("/etc/" + name);
  }
  for (const std::string& root : visible_roots(layout.visible)) add_bind(root);

  const std::string scratch = without_trailing_slash(layout.scratch.lexically_normal().string());
  add(ViewEntry::Kind::bind_directory, scratch);
  add(ViewEntry::Kind::tmpfs, without_trailing_slash(layout.work.lexically_normal().string()),
      "size=" + std::to_string(layout.work_bytes) + ",nr_inodes=" + std::to_string(layout.work_files) + ",mode=0700")
      .work = true;

  const std::string shared = "size=" + std::to_string(layout.shared_bytes) + ",nr_inodes=16384,mode=1777";
  add(ViewEntry::Kind::tmpfs, "/dev", "size=1m,nr_inodes=4096,mode=0755");
  for (const char* name : kStandardDevices)
    if (::access((std::string("/dev/") + name).c_str(), F_OK) == 0)
      add(ViewEntry::Kind::bind_device, std::string("/dev/") + name);
  // The GPU's nodes: NVIDIA's, AMD's (kfd) and the DRM render nodes.
  if (DIR* dev = ::opendir("/dev")) {
    std::vector<std::string> names;
    while (const dirent* entry = ::readdir(dev)) {
      const std::string_view name(entry->d_name);
      if (name.starts_with("nvidia") || name == "kfd" || name == "dri") names.emplace_back(name);
    }
    ::closedir(dev);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      struct stat status {};
      const std::string path = "/dev/" + name;
      if (::stat(path.c_str(), &status) != 0) continue;
      if (S_ISDIR(status.st_mode)) add(ViewEntry::Kind::bind_directory, path);
      if (S_ISCHR(status.st_mode)) add(ViewEntry::Kind::bind_device, path);
    }
  }
  add(ViewEntry::Kind::symlink, "/dev/fd", "/proc/self/fd");
  add(ViewEntry::Kind::symlink, "/dev/stdin", "/proc/self/fd/0");
  add(ViewEntry::Kind::symlink, "/dev/stdout", "/proc/self/fd/1");
  add(ViewEntry::Kind::symlink, "/dev/stderr", "/proc/self/fd/2");
  add(ViewEntry::Kind::tmpfs, "/dev/shm", shared).captured = true;
  add(ViewEntry::Kind::proc, "/proc");
  add(ViewEntry::Kind::tmpfs, "/tmp", shared).captured = true;
  add(ViewEntry::Kind::tmpfs, "/var/tmp", shared).captured = true;

  // A mount comes before whatever is mounted under it.
  std::stable_sort(plan.entries.begin(), plan.entries.end(),
                   [](const ViewEntry& a, const ViewEntry& b) { return depth(a.path) < depth(b.path); });
  return plan;
}

int build_view(ViewPlan& plan, bool own_pid_namespace, const char* pid_max, const char*& failed_at, int* captured_fds,
               const char** captured_paths, std::size_t capacity, std::size_t& captured_count, int& work_fd,
               bool& pids_limited) {
  failed_at = "/";
  if (!own_pid_namespace) return EPERM;  // the view's /proc must be the namespace's own
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return errno;
  using Kind = ViewEntry::Kind;
  for (ViewEntry& entry : plan.entries) {
    if (entry.kind != Kind::bind_directory && entry.kind != Kind::bind_file && entry.kind != Kind::bind_device)
      continue;
    entry.fd = ::open(entry.path.c_str(), O_PATH | O_CLOEXEC);
    if (entry.fd < 0) {
      failed_at = entry.path.c_str();
      return errno;
    }
  }
  failed_at = plan.staging.c_str();
  if (::mount("tmpfs", plan.staging.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=4096,mode=0755") != 0)
    return errno;
  const int staging = ::open(plan.staging.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (staging < 0) return errno;
  for (ViewEntry& entry : plan.entries) {
    failed_at = entry.path.c_str();
    int opened = -1;
    const bool built = place(entry, staging, pid_max, pids_limited, opened);
    const int error = errno;
    if (entry.fd >= 0) ::close(entry.fd);
    entry.fd = -1;
    if (!built) {
      ::close(staging);
      return error;
    }
    if (opened >= 0 && entry.captured && captured_count < capacity) {
      captured_fds[captured_count] = opened;
      captured_paths[captured_count++] = entry.path.c_str();
    } else if (opened >= 0 && entry.work) {
      work_fd = opened;
    } else if (opened >= 0) {
      ::close(opened);
    }
  }
  ::close(staging);
  failed_at = "the new root (pivot_root)";
  if (::chdir(plan.staging.c_str()) != 0 || ::syscall(SYS_pivot_root, ".", ".") != 0) return errno;
  if (::umount2(".", MNT_DETACH) != 0 || ::chdir("/") != 0) return errno;
  if (make_read_only("/", false) != 0 || make_read_only("/dev", false) != 0) return errno;
  return 0;
}

}  // namespace kcheck
