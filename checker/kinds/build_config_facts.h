#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/core/severity.h"
#include "checker/support/version.h"

namespace kcheck {

// Where a key or value starts in build.toml (1-based; 0 = unknown, e.g. an
// implicit table).
struct ConfigPosition {
  int line = 0;
  int column = 0;
};

// The schema a file was read with (build-toml.md §2).
enum class BuildEdition {
  unknown,      // not TOML, no usable [general], or matches no schema
  edition5,     // `general.edition = 5`: current
  v4,           // no edition, v4 schema: accepted, auto-upgraded by upstream
  v3,           // no edition, v3 schema: rejected upstream ("run update-build")
  pre_v3,       // no `general.backends`: v1/v2, rejected ("regenerate")
  unsupported,  // `general.edition` is an integer other than 5
};
std::string_view to_string(BuildEdition edition);

// A string value and where it stands; `key` is the dotted path used in
// findings, e.g. "kernel.matmul_cuda.cuda-capabilities[2]".
struct ConfigString {
  std::string value;
  std::string key;
  ConfigPosition position;
};

// A list of strings; `present` distinguishes an absent key from `[]`.
// Elements that are not strings are left out (a schema problem says so).
struct ConfigStringList {
  bool present = false;
  std::string key;
  ConfigPosition position;
  std::vector<ConfigString> items;

  std::vector<std::string> values() const;
};

// A Version value (build-toml.md §5.1); `version` is empty when the text is
// not a valid version (a schema problem says why).
struct ConfigVersion {
  std::string text;
  std::string key;
  ConfigPosition position;
  std::optional<Version> version;  // normalised: trailing zero components dropped
};

// One `kernel-depends` entry (§5.4).
struct KernelHubDependency {
  std::string key;
  ConfigPosition position;
  std::string repo_id;
  std::optional<std::int64_t> version;
  std::optional<std::string> revision;
};

// `[general.cuda]`, `[general.xpu]`, `[general.neuron]`, `[general.tpu]`.
struct BackendSettings {
  std::string backend;
  ConfigPosition position;
  std::optional<ConfigVersion> minver;  // cuda only
  std::optional<ConfigVersion> maxver;  // cuda only
  ConfigStringList python_depends;
  std::vector<KernelHubDependency> kernel_depends;
};

struct GeneralSection {
  bool present = false;
  ConfigPosition position;
  std::optional<ConfigString> name;
  std::optional<std::int64_t> version;
  std::optional<std::int64_t> edition;
  std::optional<ConfigString> license;
  ConfigStringList backends;
  std::optional<ConfigString> upstream;
  std::optional<ConfigString> source;
  ConfigStringList python_depends;
  std::vector<KernelHubDependency> kernel_depends;
  std::optional<ConfigString> hub_repo_id;
  std::optional<ConfigString> hub_branch;
  std::map<std::string, BackendSettings> backend_settings;  // "cuda", "xpu", "neuron", "tpu" when written
};

enum class FrameworkKind { none, torch, torch_noarch, tvm_ffi };
std::string_view to_string(FrameworkKind kind);  // "torch", "torch-noarch", "tvm-ffi", "none"

// The framework section. When the file has several, this is the first in
// file order; the schema problems report the others.
struct FrameworkSection {
  FrameworkKind kind = FrameworkKind::none;
  ConfigPosition position;
  ConfigStringList src;                                         // torch, tvm-ffi
  ConfigStringList include;                                     // torch, tvm-ffi
  ConfigStringList pyext;                                       // all three
  ConfigStringList cxx_flags;                                   // torch, tvm-ffi
  std::optional<ConfigVersion> minver;                          // torch
  std::optional<ConfigVersion> maxver;                          // torch
  std::optional<ConfigVersion> stable_abi_all_backends;         // torch: `stable-abi = "2.11"`
  std::map<std::string, ConfigVersion> stable_abi_per_backend;  // torch: `[torch.stable-abi]`
  ConfigStringList cuda_capabilities;                           // torch-noarch `cuda_capabilities`
  ConfigStringList rocm_archs;                                  // torch-noarch `rocm_archs`
};

// One `[kernel.<name>]` component.
struct KernelComponent {
  std::string name;
  std::string key;  // "kernel.<name>"
  ConfigPosition position;
  std::optional<ConfigString> backend;
  ConfigStringList src;
  ConfigStringList include;
  ConfigStringList depends;
  ConfigStringList cxx_flags;
  ConfigStringList cuda_capabilities;
  ConfigStringList cuda_flags;
  std::optional<ConfigVersion> cuda_minver;
  ConfigStringList rocm_archs;
  ConfigStringList hip_flags;
  ConfigStringList sycl_flags;
};

// A `src` or `include` entry checked on disk relative to the kernel root.
enum class PathStatus { ok, absolute, escapes_root, missing, not_a_file, not_a_directory };
struct ListedPath {
  ConfigString path;
  bool is_include = false;  // an include directory rather than a source file
  PathStatus status = PathStatus::ok;
};

// The Python package the declared name implies (§5.3), checked on disk.
struct PythonPackageFacts {
  std::string module;                 // name with '-' as '_'
  std::string directory;              // "torch-ext/<module>" or "tvm-ffi-ext/<module>"
  bool init_exists = false;           // <directory>/__init__.py
  bool nested_module_exists = false;  // <directory>/<module> (forbidden)
};

// A problem found while reading the file against its schema (KC002).
struct ConfigProblem {
  std::string key;  // dotted key, "" for the whole file
  ConfigPosition position;
  std::string message;
  Severity severity = Severity::error;
};

// build.toml of a kernel source tree, as read for the KC rules and for
// `kcheck build` (build-toml.md). Filled by read_build_config(); reading
// never throws: every problem is in read_error, parse_error or schema_problems.
struct BuildConfigFacts {
  bool present = false;
  std::string relative_path = "build.toml";  // relative to the audited root
  std::filesystem::path kernel_dir;
  std::string read_error;   // the file exists but cannot be read (P1)
  std::string parse_error;  // TOML syntax error (KC001)
  int parse_error_line = 0;
  int parse_error_column = 0;

  BuildEdition edition = BuildEdition::unknown;
  GeneralSection general;
  FrameworkSection framework;
  std::vector<FrameworkKind> framework_sections;     // every one written, in file order
  std::vector<KernelComponent> components;           // in file order
  std::vector<ListedPath> listed_paths;              // framework and component src/include
  std::optional<PythonPackageFacts> python_package;  // when the name is valid
  std::vector<ConfigProblem> schema_problems;

  // The Python module name (general.name with '-' as '_'), "" without a name.
  std::string module_name() const;
  // Parsed, edition 5 or v4, and no schema problem of severity error: the
  // builder can use the values as they are.
  bool usable() const;
};

// Reads `<kernel_dir>/build.toml`. Never throws on bad input.
BuildConfigFacts read_build_config(const std::filesystem::path& kernel_dir);

}  // namespace kcheck
