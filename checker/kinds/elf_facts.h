#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kcheck {

// An undefined dynamic symbol the module needs at load time.
struct ElfImportedSymbol {
  std::string name;
  std::string version;  // version-need name, e.g. "GLIBC_2.29"; empty when unversioned
  std::string library;  // the verneed file providing it, e.g. "libc.so.6"; empty when unknown
  bool weak = false;
};

// One version a library must provide, from .gnu.version_r (the loader checks
// each at load time, whether or not a symbol refers to it).
struct ElfVersionNeed {
  std::string version;  // e.g. "GLIBC_2.29", "GLIBC_ABI_DT_RELR"
  std::string library;  // e.g. "libc.so.6"
  bool weak = false;    // VER_FLG_WEAK: the loader only warns when it is missing
};

enum class SymbolBinding { local, global, weak, unique, other };
enum class SymbolVisibility { default_visibility, protected_visibility, hidden, internal };
enum class SymbolType { function, object, tls, other };

// A defined symbol in .dynsym (what other objects can bind to). Names stay
// mangled: demangle_symbol() (checker/support/demangle.h) turns the few that a
// finding shows into C++ names; demangling every export of a 500 MB library
// would cost more than reading it.
struct ElfExportedSymbol {
  std::string name;
  SymbolBinding binding = SymbolBinding::global;
  SymbolVisibility visibility = SymbolVisibility::default_visibility;
  SymbolType type = SymbolType::other;
};

// Device code found in `.nv_fatbin` (CUDA) or `.hip_fatbin` (HIP).
// Every list is sorted by arch number and holds each arch once.
struct DeviceCodeFacts {
  std::vector<std::string> cuda_sass_archs;  // e.g. "sm_80", "sm_90a" (arch-specific), "sm_100f" (family)
  std::vector<std::string> cuda_ptx_archs;   // e.g. "compute_90"
  std::vector<std::string> hip_targets;      // processor of each code object, e.g. "gfx90a" (":xnack-" dropped)
  std::string error;                         // set when a fat binary is present but unreadable
};

// The tables read_elf_facts reads beyond those every rule needs (identity,
// segments, .dynamic, the dynamic symbols and their versions). Each is read
// only when a rule that judges its facts runs: on a large library each
// costs more than all the others together.
struct ElfTables {
  bool torch_library_namespaces = true;  // .dynsym and .symtab names (KO, KP001, KP002, the harness)
  bool build_leaks = true;               // .comment and debug sections (KE012)
  bool read_only_data = true;            // the strings of .rodata (KE012)
  bool device_code = true;               // .nv_fatbin, .hip_fatbin (KE014, KM010)

  // Everything `wanted` asks for was read.
  bool covers(const ElfTables& wanted) const {
    return (torch_library_namespaces || !wanted.torch_library_namespaces) && (build_leaks || !wanted.build_leaks) &&
           (read_only_data || !wanted.read_only_data) && (device_code || !wanted.device_code);
  }
};
inline constexpr ElfTables kNoOptionalElfTables{false, false, false, false};

// Everything the KE/KO rules need from one ELF file, read once, lazily, from
// an mmap. When `error` is set the file is not a usable shared object and the
// other members hold whatever was read before the problem was found.
// A module registers its ops under one namespace (two with a fragment); past
// this many distinct ones the rest are not recorded (KO001 says so).
inline constexpr std::size_t kMaxTorchLibraryNamespaces = 64;

struct ElfFacts {
  std::string error;                 // e.g. "truncated: section header table ends past the file (offset ...)"
  int elf_class = 0;                 // 32 or 64
  std::uint16_t machine = 0;         // e_machine
  std::string machine_name;          // "x86_64", "aarch64", or "EM_<n>"
  std::uint16_t elf_type = 0;        // e_type (ET_DYN = 3)
  bool program_interpreter = false;  // PT_INTERP: a program (PIE or not), not a library Python imports

  std::vector<std::string> needed;
  std::string soname;
  std::vector<std::string> rpath;    // split on ':'
  std::vector<std::string> runpath;  // split on ':'

  std::vector<ElfImportedSymbol> imports;
  std::vector<ElfVersionNeed> version_needs;  // in .gnu.version_r order
  std::vector<ElfExportedSymbol> exports;

  bool has_gnu_stack = false;
  bool executable_stack = false;  // PT_GNU_STACK with PF_X (or no PT_GNU_STACK)
  bool writable_and_executable_segment = false;
  bool has_relro = false;
  bool bind_now = false;          // DF_BIND_NOW or DF_1_NOW
  bool text_relocations = false;  // DT_TEXTREL or DF_TEXTREL
  bool has_debug_sections = false;
  std::vector<std::string> debug_section_names;  // ".debug_info", ...
  // Absolute builder paths (/home/..., /nix/store/...) in .comment and the
  // DWARF string/line tables; distinct, at most kMaxLeakedBuildPaths.
  std::vector<std::string> leaked_build_paths;
  static constexpr std::size_t kMaxLeakedBuildPaths = 16;
  // Absolute builder paths of source files among the strings of .rodata and
  // .rodata.* (__FILE__ in asserts and error messages); distinct, at most
  // kMaxLeakedSourcePaths.
  std::vector<std::string> read_only_data_build_paths;
  static constexpr std::size_t kMaxLeakedSourcePaths = 4;
  // The same in device code (.nv_fatbin, __nv_relfatbin, .hip_fatbin): the
  // line tables nvcc's -lineinfo and -G write into the embedded cubins and
  // PTX, which -ffile-prefix-map does not reach; distinct, at most
  // kMaxLeakedSourcePaths. The compressed entries of .nv_fatbin are
  // searched in what they decompress to.
  std::vector<std::string> device_code_build_paths;
  // Compressed device code KE012 did not search: how many entries (one that
  // did not decompress to its declared size, past kcheck's bounds, a
  // compressed HIP offload bundle), why the first was not, and the section
  // it lies in (".nv_fatbin", ".hip_fatbin").
  std::uint64_t unsearched_device_code_entries = 0;
  std::string unsearched_device_code_reason;
  std::string unsearched_device_code_section;
  // Why .nv_fatbin was searched byte by byte only, not entry by entry (a
  // header stopped the walk that lists its compressed entries), and whether
  // the bytes past that point hold zstd's magic number: a compressed entry
  // may then have gone unsearched.
  std::string device_code_walk_stopped;
  std::string device_code_walk_stopped_section;  // ".nv_fatbin", "__nv_relfatbin"
  bool device_code_walk_stopped_before_zstd = false;

  std::optional<DeviceCodeFacts> device_code;

  // Namespaces of Torch operator libraries registered by the module, from
  // TORCH_LIBRARY/STABLE_TORCH_LIBRARY static-initialiser symbols and strings.
  // Read from .dynsym and .symtab; distinct, in order of appearance, at most
  // kMaxTorchLibraryNamespaces; `more_torch_library_namespaces` when there were more.
  std::vector<std::string> torch_library_namespaces;
  bool more_torch_library_namespaces = false;

  // Which optional tables were read: the facts of the others are empty
  // because they were not read, not because the file has none.
  ElfTables tables_read = kNoOptionalElfTables;

  bool is_shared_object() const { return elf_type == 3; }  // ET_DYN
};

// ElfFacts::error for a Git LFS pointer file in place of the module.
inline constexpr std::string_view kGitLfsPointerError =
    "a Git LFS pointer, not the binary: the real file was not downloaded (run `git lfs pull`)";

// A module's undefined symbols resolved against libraries at hand
// (needed_closure.h, KE015): its DT_NEEDED closure and Torch's global scope.
struct NeededClosureFacts {
  std::string module;                   // the module's path, relative to its variant
  std::vector<std::string> searched;    // file names of the libraries whose symbols were searched, in load order
  std::vector<std::string> missing;     // libraries of the closure found in no directory given
  std::vector<std::string> unresolved;  // non-weak, unversioned imports none of them defines, sorted
  bool complete() const { return missing.empty(); }
};

class WorkPool;

// Reads the facts of one ELF file. Never throws on bad input: problems land
// in ElfFacts::error. With a `pool`, the long string scans of a large
// library (its .rodata and fat binaries) run on the pool's threads too, in
// pieces; the facts are the same as without.
ElfFacts read_elf_facts(const std::filesystem::path& file, const ElfTables& tables = {}, WorkPool* pool = nullptr);

}  // namespace kcheck
