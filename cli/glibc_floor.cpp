// kcheck keeps the glibc floor it asks of kernels (manylinux_2_28: GLIBC
// 2.28) when it is built to be shipped (-DKCHECK_PORTABLE=ON, the wheel).
// Built on a newer glibc, a binary binds the newest version of each symbol;
// the few kcheck uses that changed version after 2.28 are bound here to the
// version every x86_64 glibc has (2.2.5), and the linker routes kcheck's own
// references here with --wrap (cli/glibc_floor.wraps lists them):
// - __libc_start_main: 2.34 (from the C runtime's start file). The 2.2.5
//   entry point of an older glibc runs no constructors unless given an init
//   function, which the 2.34 start file does not pass: this one is passed.
// - pow: 2.29 (a faster pow with the same results); stat, fstat, lstat,
//   fstat64, fstatat: 2.33 (before, the __xstat family with a version argument);
// - the pthread and dl functions that moved from libpthread and libdl into
//   libc in 2.34 (same ABI; on an older glibc libpthread.so.0 and libdl.so.2
//   define them, so kcheck keeps both as needed libraries): a jump to the
//   2.2.5 version; log2 (2.29) likewise;
// - what the static libstdc++/libgcc of a newer GCC take from a newer glibc
//   when it is there: arc4random (2.36; std::random_device) from getrandom,
//   _dl_find_object (2.35; the unwinder) from dl_iterate_phdr, and
//   __libc_single_threaded (2.32) as 0 (always take the thread-safe path).
// The check that nothing newer is left is kcheck's own KE001 on its binary
// (tests/CMakeLists.txt, kcheck_portable_meets_its_own_floor).
#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#if defined(__x86_64__) && defined(__GLIBC__)

// A function whose ABI did not change: __wrap_NAME jumps to NAME@GLIBC_2.2.5.
#define KCHECK_AS_OF_GLIBC_2_2_5(name)                                       \
  __asm__(".symver kcheck_2_2_5_" #name ", " #name                           \
          "@GLIBC_2.2.5\n"                                                   \
          ".pushsection .text\n.globl __wrap_" #name "\n.type __wrap_" #name \
          ", @function\n"                                                    \
          "__wrap_" #name ":\n  jmp kcheck_2_2_5_" #name "@PLT\n.popsection\n");
KCHECK_AS_OF_GLIBC_2_2_5(pthread_create)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_join)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_detach)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_once)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_key_create)
KCHECK_AS_OF_GLIBC_2_2_5(__pthread_key_create)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_key_delete)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_getspecific)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_setspecific)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_kill)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_sigmask)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_attr_setstacksize)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_mutexattr_init)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_mutexattr_settype)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_mutexattr_destroy)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_mutex_trylock)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_rwlock_init)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_rwlock_destroy)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_rwlock_rdlock)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_rwlock_wrlock)
KCHECK_AS_OF_GLIBC_2_2_5(pthread_rwlock_unlock)
// libdl's, also moved into libc in 2.34 (libcrypto's DSO support).
KCHECK_AS_OF_GLIBC_2_2_5(dlopen)
KCHECK_AS_OF_GLIBC_2_2_5(dlclose)
KCHECK_AS_OF_GLIBC_2_2_5(dlsym)
KCHECK_AS_OF_GLIBC_2_2_5(dlerror)
KCHECK_AS_OF_GLIBC_2_2_5(dladdr)
// libm: 2.29 brought faster log2 and pow with the same results.
KCHECK_AS_OF_GLIBC_2_2_5(log2)

extern "C" {

__asm__(".symver kcheck_libc_start_main_2_2_5, __libc_start_main@GLIBC_2.2.5");
__asm__(".symver kcheck_pow_2_2_5, pow@GLIBC_2.2.5");
__asm__(".symver kcheck_xstat_2_2_5, __xstat@GLIBC_2.2.5");
__asm__(".symver kcheck_fxstat_2_2_5, __fxstat@GLIBC_2.2.5");
__asm__(".symver kcheck_lxstat_2_2_5, __lxstat@GLIBC_2.2.5");
__asm__(".symver kcheck_fxstat64_2_2_5, __fxstat64@GLIBC_2.2.5");
__asm__(".symver kcheck_fxstatat_2_4, __fxstatat@GLIBC_2.4");

using EntryPoint = int (*)(int, char**, char**);
using Initialiser = void (*)(int, char**, char**);
int kcheck_libc_start_main_2_2_5(EntryPoint main, int argc, char** argv, Initialiser init, void (*fini)(),
                                 void (*loader_fini)(), void* stack_end);
double kcheck_pow_2_2_5(double base, double exponent);
int kcheck_xstat_2_2_5(int version, const char* path, struct stat* status);
int kcheck_fxstat_2_2_5(int version, int fd, struct stat* status);
int kcheck_lxstat_2_2_5(int version, const char* path, struct stat* status);
int kcheck_fxstat64_2_2_5(int version, int fd, struct stat64* status);
int kcheck_fxstatat_2_4(int version, int directory, const char* path, struct stat* status, int flags);

// What the linker and the C runtime's crti.o provide for the executable.
extern Initialiser __init_array_start[] __attribute__((visibility("hidden")));
extern Initialiser __init_array_end[] __attribute__((visibility("hidden")));
void _init();

namespace {
constexpr int kStatVersion = 1;  // _STAT_VER on x86_64

// What glibc before 2.34 expected from the executable (__libc_csu_init):
// _init, then every constructor. glibc 2.34+ given one calls it instead of
// running the constructors itself, so they run once either way.
void run_constructors(int argc, char** argv, char** environment) {
  _init();
  for (Initialiser* constructor = __init_array_start; constructor != __init_array_end; ++constructor)
    (*constructor)(argc, argv, environment);
}
}  // namespace

int __wrap___libc_start_main(EntryPoint main, int argc, char** argv, Initialiser init, void (*fini)(),
                             void (*loader_fini)(), void* stack_end) {
  return kcheck_libc_start_main_2_2_5(main, argc, argv, init ? init : run_constructors, fini, loader_fini, stack_end);
}

double __wrap_pow(double base, double exponent) { return kcheck_pow_2_2_5(base, exponent); }
int __wrap_stat(const char* path, struct stat* status) { return kcheck_xstat_2_2_5(kStatVersion, path, status); }
int __wrap_fstat(int fd, struct stat* status) { return kcheck_fxstat_2_2_5(kStatVersion, fd, status); }
int __wrap_lstat(const char* path, struct stat* status) { return kcheck_lxstat_2_2_5(kStatVersion, path, status); }
int __wrap_fstat64(int fd, struct stat64* status) { return kcheck_fxstat64_2_2_5(kStatVersion, fd, status); }
int __wrap_fstatat(int directory, const char* path, struct stat* status, int flags) {
  return kcheck_fxstatat_2_4(kStatVersion, directory, path, status, flags);
}

char __wrap___libc_single_threaded = 0;

unsigned __wrap_arc4random() {
  unsigned value = 0;
  while (::syscall(SYS_getrandom, &value, sizeof value, 0) != static_cast<long>(sizeof value)) {
  }
  return value;
}

namespace {
struct ObjectSearch {
  std::uintptr_t pc;
  dl_find_object* found;
};

int find_object_of(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<ObjectSearch*>(data);
  std::uintptr_t start = UINTPTR_MAX, end = 0;
  bool contains = false;
  void* eh_frame = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const std::uintptr_t segment_start = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_GNU_EH_FRAME) eh_frame = reinterpret_cast<void*>(segment_start);
    if (segment.p_type != PT_LOAD) continue;
    const std::uintptr_t segment_end = segment_start + segment.p_memsz;
    start = segment_start < start ? segment_start : start;
    end = segment_end > end ? segment_end : end;
    contains = contains || (search->pc >= segment_start && search->pc < segment_end);
  }
  if (!contains) return 0;
  *search->found = {};
  search->found->dlfo_map_start = reinterpret_cast<void*>(start);
  search->found->dlfo_map_end = reinterpret_cast<void*>(end);
  search->found->dlfo_eh_frame = eh_frame;
  return 1;
}
}  // namespace

int __wrap__dl_find_object(void* pc, dl_find_object* result) {
  ObjectSearch search{reinterpret_cast<std::uintptr_t>(pc), result};
  return ::dl_iterate_phdr(find_object_of, &search) == 1 ? 0 : -1;
}

}  // extern "C"

#endif
