// System calls the keeper (process/process_containment.cpp) and the view it
// builds (process/sandbox_view.cpp) share. Each only makes system calls: they run
// between clone and exec, where nothing may allocate.
#pragma once
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <initializer_list>

namespace kcheck::mount_calls {

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

// struct mount_attr of linux/mount.h (which clashes with sys/mount.h).
struct MountAttributes {
  std::uint64_t attr_set = 0;
  std::uint64_t attr_clr = 0;
  std::uint64_t propagation = 0;
  std::uint64_t userns_fd = 0;
};

inline int set_mount_attributes(const char* path, unsigned flags, const MountAttributes& attributes) {
#ifdef SYS_mount_setattr
  return static_cast<int>(::syscall(SYS_mount_setattr, AT_FDCWD, path, flags, &attributes, sizeof attributes));
#else
  errno = ENOSYS;
  return -1;
#endif
}

// The mount at `path` (and with `recursive` every one under it) read-only.
inline int make_read_only(const char* path, bool recursive) {
  MountAttributes read_only;
  read_only.attr_set = MOUNT_ATTR_RDONLY;
  return set_mount_attributes(path, recursive ? AT_RECURSIVE : 0, read_only);
}

// The mount whose root descriptor `fd` holds (an O_PATH descriptor opened
// after the mount) read-only: no path is looked up again.
inline int make_read_only_at(int fd, bool recursive) {
#ifdef SYS_mount_setattr
  MountAttributes read_only;
  read_only.attr_set = MOUNT_ATTR_RDONLY;
  return static_cast<int>(::syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0),
                                    &read_only, sizeof read_only));
#else
  (void)fd;
  (void)recursive;
  errno = ENOSYS;
  return -1;
#endif
}

inline int make_writable(const char* path) {
  MountAttributes writable;
  writable.attr_clr = MOUNT_ATTR_RDONLY;
  return set_mount_attributes(path, 0, writable);
}

// "/proc/self/fd/N": a path that leads to what descriptor N holds, even once
// another mount hides it.
inline void descriptor_path(int fd, char (&path)[32]) {
  std::memcpy(path, "/proc/self/fd/", 14);
  char digits[12];
  int count = 0;
  for (int rest = fd; count == 0 || rest > 0; rest /= 10) digits[count++] = static_cast<char>('0' + rest % 10);
  std::size_t at = 14;
  while (count > 0) path[at++] = digits[--count];
  path[at] = '\0';
}

// Appends `text` to `buffer` (NUL-terminated, `capacity` bytes); false when it does not fit.
inline bool append(char* buffer, std::size_t capacity, const char* text) {
  std::size_t at = std::strlen(buffer);
  for (; *text; ++text) {
    if (at + 1 >= capacity) return false;
    buffer[at++] = *text;
  }
  buffer[at] = '\0';
  return true;
}

// Since Linux 6.14 each PID namespace has its own pid_max: no process (or
// thread) of the namespace gets a pid past it, so fork fails there (EAGAIN).
// Written through the namespace's own /proc mounted at `proc` before its
// /sys is made read-only, and only where the kernel is 6.14 or later
// (`pid_max` is empty otherwise): before, the setting is the machine's.
inline bool limit_namespace_pids(const char* proc, const char* pid_max) {
  char path[4096] = "";
  if (!pid_max || !*pid_max || !append(path, sizeof path, proc) || !append(path, sizeof path, "/sys/kernel/pid_max"))
    return false;
  const int fd = ::open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  const auto length = static_cast<ssize_t>(std::strlen(pid_max));
  char text[32] = {};
  const bool limited = ::write(fd, pid_max, static_cast<std::size_t>(length)) == length &&
                       ::pread(fd, text, sizeof text - 1, 0) > 0 &&
                       std::strncmp(text, pid_max, static_cast<std::size_t>(length)) == 0;
  ::close(fd);
  return limited;
}

// The CUDA driver fails to initialise (error 304) on a read-only /proc (found
// on an H100 machine). The namespace's own /proc (mounted at `proc`) shows
// only its processes, so it stays writable, except what reaches beyond them:
// kernel settings, SysRq, interrupts and buses are made read-only, as
// container runtimes keep them. False when one of those could not be.
inline bool keep_proc_settings_read_only(const char* proc) {
  for (const char* kept : {"/sys", "/sysrq-trigger", "/irq", "/bus"}) {
    char path[4096] = "";
    if (!append(path, sizeof path, proc) || !append(path, sizeof path, kept)) return false;
    if (::access(path, F_OK) != 0) continue;
    if (::mount(path, path, nullptr, MS_BIND, nullptr) != 0 || make_read_only(path, true) != 0) return false;
  }
  return true;
}

}  // namespace kcheck::mount_calls
