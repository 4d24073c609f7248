// Where a native module's undefined symbols come from, resolved against
// libraries at hand (KE015): the module's DT_NEEDED closure, found by file
// name in the directories given (a Torch's lib/, the CUDA toolkit's lib64,
// the system's), plus what a Torch process has loaded globally before any
// kernel (libtorch_global_deps.so's closure) and the Python interpreter's C
// API. Nothing here is code of the audited repository: the libraries are
// the caller's, read like any ELF file (lazily, from an mmap).
#pragma once
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "checker/kinds/elf_facts.h"

namespace kcheck {

// One library of the search directories: what it needs and defines.
struct LibraryExports {
  std::filesystem::path path;
  std::vector<std::string> needed;
  std::vector<std::filesystem::path> origin_runpath;  // its RUNPATH/RPATH entries under $ORIGIN, expanded
  std::unordered_set<std::string> defined;            // defined dynamic symbols, any version
  std::string error;                                  // not a usable ELF library: why
};

// The search directories and every library read from them so far (each read once).
class LibraryIndex {
 public:
  explicit LibraryIndex(std::vector<std::filesystem::path> directories);

  // The library of that file name in the first of `first` (the requester's
  // $ORIGIN runpath), then of the search directories, that has it; null when
  // none has. `first_are_repository`: those are the audited repository's
  // directories, where a link is never followed.
  const LibraryExports* find(const std::string& file_name, const std::vector<std::filesystem::path>& first,
                             bool first_are_repository = false);
  const std::vector<std::filesystem::path>& directories() const { return directories_; }

 private:
  std::vector<std::filesystem::path> directories_;
  std::map<std::string, std::unique_ptr<LibraryExports>> read_;  // by path; null: no such file
};

// The Torch process's global scope before any kernel loads: this library's closure.
inline constexpr const char* kTorchGlobalDeps = "libtorch_global_deps.so";

// The directories the dynamic linker searches by default on this system.
std::vector<std::filesystem::path> system_library_directories();

// The RUNPATH (else RPATH) entries of an object in `directory` that start with $ORIGIN, expanded.
std::vector<std::filesystem::path> origin_runpath(const ElfFacts& elf, const std::filesystem::path& directory);

// `module` (relative to `variant_directory`) with its ELF facts. Without
// libtorch_global_deps.so among the libraries, the global scope is unknown
// and the closure is incomplete (`missing` names it).
NeededClosureFacts resolve_needed_closure(const std::string& module, const ElfFacts& elf,
                                          const std::filesystem::path& variant_directory, LibraryIndex& libraries);

}  // namespace kcheck
