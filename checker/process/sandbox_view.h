// The host as contained code sees it when kcheck hides it (issue #28): a
// fresh root holding only what the run needs, every other path of the
// machine absent rather than read-only.
//
// The view holds, read-only: the system's own directories (/usr, /bin, /sbin,
// /lib*, /sys) and the few files of /etc that programs and the dynamic loader
// read (ld.so.cache, passwd, group, alternatives, ...; never ld.so.preload);
// the paths kcheck names (the variant, the repository, the worker, Torch and
// Python); and the run's scratch directory (kcheck's inputs to it). Writable
// are only fresh size-bounded tmpfs mounts: the scratch's "work"
// subdirectory (the working directory, HOME and TMPDIR), /tmp, /var/tmp and
// /dev/shm. /dev is a tmpfs with the standard nodes (null, zero, full,
// random, urandom, tty) and the GPU's (nvidia*, nvidia-caps, dri, kfd)
// bound in; /proc is the PID namespace's own. Home directories, /run and
// its sockets, /var, /mnt, /opt and other checkouts are not there.
//
// plan_view() runs in kcheck (it allocates); build_view() runs in the keeper
// between clone and exec, so it only makes system calls.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kcheck {

struct ViewEntry {
  enum class Kind { bind_directory, bind_file, bind_device, symlink, tmpfs, proc };
  Kind kind = Kind::bind_directory;
  std::string path;       // where it appears in the view; for a bind also the host path it shows
  std::string staged;     // where it is built before the view becomes the root
  std::string link;       // symlink: its text; tmpfs: its mount options
  bool captured = false;  // a shared tmpfs (/tmp, /var/tmp, /dev/shm): its files are counted after the run
  bool work = false;      // the scratch's work directory: its fullness is reported after the run
  bool recursive = true;  // bind_directory: with what is mounted under it
  int fd = -1;            // bind: the host path, opened before the staging tmpfs may hide it
};

struct ViewPlan {
  std::string staging = "/tmp";    // the host directory the new root's tmpfs is mounted on
  std::vector<ViewEntry> entries;  // a parent before whatever is mounted under it
};

struct ViewLayout {
  std::vector<std::filesystem::path> visible;  // host paths shown read-only (absent ones are skipped)
  std::filesystem::path scratch;               // shown read-only: kcheck's inputs
  std::filesystem::path work;                  // inside `scratch`: a tmpfs of work_bytes and work_files
  std::uint64_t work_bytes = 1ull << 30;
  std::uint64_t work_files = 16384;
  std::uint64_t shared_bytes = 1ull << 30;  // each of /tmp, /var/tmp and /dev/shm
};

// The paths `visible` comes down to: absolute and normal, with the canonical
// form beside the given one where they differ; without "/" and what the
// system part of the view already shows (/usr/..., /lib/... through its
// link, /proc, /dev, /sys); without those inside another of them.
std::vector<std::string> visible_roots(const std::vector<std::filesystem::path>& visible);

ViewPlan plan_view(const ViewLayout& layout);

// Builds the view in a mount namespace of the caller's own and makes it the
// root (pivot_root), then leaves the directory it holds. On failure returns
// the errno and sets `failed_at` to the path it was building; the mount
// namespace is then unusable and the caller must not run anything in it.
// Keeps each captured tmpfs open in captured_fds (up to `capacity`) and the
// work tmpfs in work_fd, for counting after the run.
int build_view(ViewPlan& plan, bool own_pid_namespace, const char* pid_max, const char*& failed_at, int* captured_fds,
               const char** captured_paths, std::size_t capacity, std::size_t& captured_count, int& work_fd,
               bool& pids_limited);

}  // namespace kcheck
