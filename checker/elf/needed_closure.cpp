#include "checker/elf/needed_closure.h"

#include <algorithm>
#include <deque>
#include <set>
#include <system_error>
#include <utility>

namespace kcheck {
namespace fs = std::filesystem;

namespace {

// Only what resolution needs: identity, the dynamic section, .dynsym.
LibraryExports read_library(const fs::path& path) {
  LibraryExports library;
  library.path = path;
  try {
    ElfFacts facts = read_elf_facts(path, kNoOptionalElfTables);
    library.error = facts.error;
    library.needed = std::move(facts.needed);
    library.origin_runpath = origin_runpath(facts, path.parent_path());
    for (ElfExportedSymbol& symbol : facts.exports) library.defined.insert(std::move(symbol.name));
  } catch (const std::exception& error) {
    library.error = error.what();
  }
  return library;
}

// The interpreter's C API: defined by the python executable (or its
// libpython), which every Torch process has in its global scope.
bool python_api(const std::string& symbol) { return symbol.starts_with("Py") || symbol.starts_with("_Py"); }

// The directories of `directories` inside `root` (lexically): a repository's
// runpath never leads kcheck out of the audited variant.
std::vector<fs::path> within(const std::vector<fs::path>& directories, const fs::path& root) {
  std::vector<fs::path> inside;
  const fs::path base = root.lexically_normal();
  for (const fs::path& directory : directories) {
    const fs::path relative = directory.lexically_normal().lexically_relative(base);
    if (!relative.empty() && *relative.begin() != "..") inside.push_back(directory);
  }
  return inside;
}

// The module's $ORIGIN runpath, inside its variant.
std::vector<fs::path> repository_origin_runpath(const std::string& module, const ElfFacts& elf,
                                                const fs::path& variant_directory) {
  return within(origin_runpath(elf, (variant_directory / module).parent_path()), variant_directory);
}

}  // namespace

std::vector<fs::path> origin_runpath(const ElfFacts& elf, const fs::path& directory) {
  // The loader ignores RPATH when RUNPATH is present.
  const std::vector<std::string>& entries = elf.runpath.empty() ? elf.rpath : elf.runpath;
  std::vector<fs::path> directories;
  for (const std::string& entry : entries)
    for (std::string_view origin : {"$ORIGIN", "${ORIGIN}"})
      if (entry.starts_with(origin)) {
        directories.push_back((directory / ("." + entry.substr(origin.size()))).lexically_normal());
        break;
      }
  return directories;
}

LibraryIndex::LibraryIndex(std::vector<fs::path> directories) : directories_(std::move(directories)) {}

const LibraryExports* LibraryIndex::find(const std::string& file_name, const std::vector<fs::path>& first,
                                         bool first_are_repository) {
  if (file_name.empty() || file_name.find('/') != std::string::npos || file_name == "." || file_name == "..")
    return nullptr;
  for (std::size_t index = 0; index < first.size() + directories_.size(); ++index) {
    const bool repository = index < first.size() && first_are_repository;
    const fs::path path = (index < first.size() ? first[index] : directories_[index - first.size()]) / file_name;
    auto known = read_.find(path.string());
    if (known == read_.end()) {
      // A repository's own file is read only as the regular file it is (no
      // link followed out of the audited tree); the caller's libraries may be links.
      std::error_code error;
      const fs::file_status status = repository ? fs::symlink_status(path, error) : fs::status(path, error);
      std::unique_ptr<LibraryExports> library;
      if (!error && fs::is_regular_file(status)) library = std::make_unique<LibraryExports>(read_library(path));
      known = read_.emplace(path.string(), std::move(library)).first;
    }
    if (known->second && known->second->error.empty()) return known->second.get();
  }
  return nullptr;
}

std::vector<fs::path> system_library_directories() {
#if defined(__aarch64__)
  constexpr const char* kMultiarch = "aarch64-linux-gnu";
#else
  constexpr const char* kMultiarch = "x86_64-linux-gnu";
#endif
  return {fs::path("/lib") / kMultiarch, fs::path("/usr/lib") / kMultiarch, "/lib64", "/usr/lib64", "/lib", "/usr/lib"};
}

NeededClosureFacts resolve_needed_closure(const std::string& module, const ElfFacts& elf,
                                          const fs::path& variant_directory, LibraryIndex& libraries) {
  NeededClosureFacts facts;
  facts.module = module;
  std::set<std::string> visited;
  std::vector<const LibraryExports*> scope;
  // Breadth first, as the loader orders dependencies; each found in its
  // requester's $ORIGIN runpath first (Torch's wheel finds its CUDA libraries so).
  struct Wanted {
    std::string name;
    std::vector<fs::path> first;  // the requester's $ORIGIN runpath
    bool from_repository = false;
  };
  std::deque<Wanted> queue;
  queue.push_back({kTorchGlobalDeps, {}, false});  // loaded globally by `import torch`
  for (const std::string& needed : elf.needed)
    queue.push_back({needed, repository_origin_runpath(module, elf, variant_directory), true});
  while (!queue.empty()) {
    const Wanted wanted = std::move(queue.front());
    queue.pop_front();
    const std::string& name = wanted.name;
    if (!visited.insert(name).second) continue;
    const LibraryExports* library = libraries.find(name, wanted.first, wanted.from_repository);
    if (!library) {
      facts.missing.push_back(name);
      continue;
    }
    facts.searched.push_back(name);
    scope.push_back(library);
    // A library of the repository is its file; its own runpath stays inside the variant too.
    const bool inside = wanted.from_repository && library->path.string().starts_with(variant_directory.string());
    for (const std::string& needed : library->needed)
      queue.push_back(
          {needed, inside ? within(library->origin_runpath, variant_directory) : library->origin_runpath, inside});
  }
  std::set<std::string> unresolved;
  for (const ElfImportedSymbol& symbol : elf.imports) {
    if (symbol.weak || !symbol.version.empty() || python_api(symbol.name)) continue;
    const bool defined = std::any_of(scope.begin(), scope.end(), [&](const LibraryExports* library) {
      return library->defined.contains(symbol.name);
    });
    if (!defined) unresolved.insert(symbol.name);
  }
  facts.unresolved.assign(unresolved.begin(), unresolved.end());
  return facts;
}

}  // namespace kcheck
