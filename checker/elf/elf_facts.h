#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kcheck {

// An undefined dynamic symbol the module needs at load time.
struct ElfImportedSymbol {
  std::string name;
  std::string version;  // version-need name, e.g. "GLIBC_2.29"; empty when unversioned
  std::string library;  // the verneed file providing it, e.g. "libc.so.6"; empty when unknown
  bool weak = false;
};

enum class SymbolBinding { local, global, weak, unique, other };
enum class SymbolVisibility { default_visibility, protected_visibility, hidden, internal };
enum class SymbolType { function, object, tls, other };

// A defined symbol in .dynsym (what other objects can bind to).
struct ElfExportedSymbol {
  std::string name;
  std::string demangled;  // == name when not a C++ symbol
  SymbolBinding binding = SymbolBinding::global;
  SymbolVisibility visibility = SymbolVisibility::default_visibility;
  SymbolType type = SymbolType::other;
};

// Device code found in `.nv_fatbin` (CUDA) or `.hip_fatbin` (HIP).
struct DeviceCodeFacts {
  std::vector<std::string> cuda_sass_archs;  // e.g. "sm_80", "sm_90a"
  std::vector<std::string> cuda_ptx_archs;   // e.g. "compute_90"
  std::vector<std::string> hip_targets;      // e.g. "gfx90a"
  std::string error;                         // set when a fat binary is present but unreadable
};

// Everything the KE/KO rules need from one ELF file, read once, lazily, from
// an mmap. When `error` is set the file is not a usable shared object and the
// other members hold whatever was read before the problem was found.
struct ElfFacts {
  std::string error;          // e.g. "truncated: section header table ends past the file (offset ...)"
  int elf_class = 0;          // 32 or 64
  std::uint16_t machine = 0;  // e_machine
  std::string machine_name;   // "x86_64", "aarch64", or "EM_<n>"
  std::uint16_t elf_type = 0; // e_type (ET_DYN = 3)

  std::vector<std::string> needed;
  std::string soname;
  std::vector<std::string> rpath;    // split on ':'
  std::vector<std::string> runpath;  // split on ':'

  std::vector<ElfImportedSymbol> imports;
  std::vector<ElfExportedSymbol> exports;

  bool has_gnu_stack = false;
  bool executable_stack = false;              // PT_GNU_STACK with PF_X (or no PT_GNU_STACK)
  bool writable_and_executable_segment = false;
  bool has_relro = false;
  bool bind_now = false;   // DF_BIND_NOW or DF_1_NOW
  bool text_relocations = false;  // DT_TEXTREL or DF_TEXTREL
  bool has_debug_sections = false;
  std::vector<std::string> leaked_build_paths;  // absolute builder paths in .comment / debug strings

  std::optional<DeviceCodeFacts> device_code;

  // Namespaces of Torch operator libraries registered by the module, from
  // TORCH_LIBRARY/STABLE_TORCH_LIBRARY static-initialiser symbols and strings.
  std::vector<std::string> torch_library_namespaces;
};

// Reads the facts of one ELF file. Never throws on bad input: problems land
// in ElfFacts::error.
ElfFacts read_elf_facts(const std::filesystem::path& file);

}  // namespace kcheck
