#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace kcheck {

// A C++ dependency a component names in `depends` (build-toml.md §5.4);
// the backend it belongs to is build_config::conventional_backend(name).
struct CppDependencyInfo {
  std::string name;          // "cutlass_3_8"
  std::string library;       // "CUTLASS"
  std::string version;       // the version upstream builds with: "3.8.0"
  std::string pypi_package;  // where kcheck gets its headers: "nvidia-cutlass"; "" if nowhere
  std::string pypi_version;  // "3.8.0.0"; "" when PyPI serves no release of `version`
};

// Every dependency name the upstream builder knows; nullptr for another name.
const CppDependencyInfo* find_cpp_dependency(const std::string& name);
const std::vector<CppDependencyInfo>& known_cpp_dependencies();

// Include directories a resolved dependency adds to a build.
struct ResolvedCppDependency {
  std::string name;
  std::vector<std::filesystem::path> include_dirs;
  bool fetched = false;  // downloaded into the cache by this call
};

// Runs a command (argv) and returns its exit status and output; the builder
// passes its bounded runner so tests can stub it.
struct CommandResult {
  int exit_code = -1;
  std::string output;
};
using CommandRunner = std::function<CommandResult(const std::vector<std::string>&)>;

// Makes a dependency's headers available under `deps_dir`
// (<deps_dir>/<library>-<version>/include, e.g. cutlass-3.8.0/include):
// already there (put there by hand or by an earlier build), else fetched from
// PyPI with `python -m pip download` and unpacked. Throws BuildError, naming
// the dependency and what to do, when it cannot be had: never skipped.
ResolvedCppDependency resolve_cpp_dependency(const std::string& name, const std::filesystem::path& deps_dir,
                                             const std::filesystem::path& python, const CommandRunner& run);

// The default cache: $XDG_CACHE_HOME/kcheck/deps, else ~/.cache/kcheck/deps.
std::filesystem::path default_deps_dir();

}  // namespace kcheck
