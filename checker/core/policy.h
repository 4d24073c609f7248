#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/core/severity.h"
#include "checker/support/version.h"

namespace kcheck {

// How a variant must ship the C++ runtime.
enum class CxxRuntimePolicy {
  dynamic_within_ceilings,  // `hub`: libstdc++.so.6 allowed, symbol versions capped
  static_only,              // `hub-legacy`: no libstdc++/libc++ DT_NEEDED, no GLIBCXX/CXXABI refs
};

// Which Python package layout a variant must have (KL003/KL004).
enum class PackageLayout {
  top_level,  // `hub`: <variant>/__init__.py; compat package <variant>/<module>/ optional
  nested,     // `hub-legacy`: <variant>/<module>/__init__.py required
};

// Required variants for one (system, backend) pair, e.g. ("x86_64-linux", "cuda").
struct RequiredVariantSet {
  std::string system;
  std::string backend;
  std::vector<std::string> variants;
};

// One allowed Python dependency: the name declared in python-depends and
// the module names it makes importable.
struct AllowedPythonDependency {
  std::string name;
  std::vector<std::string> import_names;
};

struct NativePolicy {
  // arch ("x86_64", "aarch64") -> symbol-version family ("GLIBC", "GLIBCXX",
  // "CXXABI", "GCC") -> highest allowed version.
  std::map<std::string, std::map<std::string, Version>> symbol_ceilings;
  CxxRuntimePolicy cxx_runtime = CxxRuntimePolicy::dynamic_within_ceilings;
  // DT_NEEDED names allowed from the system (manylinux whitelist).
  std::set<std::string> system_libraries;
  // Glob patterns (`*` only) for Torch's own libraries and the accelerator
  // libraries Torch depends on (libcudart.so.*, libamdhip64.so*, ...).
  std::vector<std::string> torch_library_patterns;
  // Exact version-node names allowed although they are not numeric
  // (e.g. "CXXABI_TM_1"); any other non-numeric node (GLIBC_PRIVATE) is not.
  std::set<std::string> allowed_named_versions;
  // Named version nodes that a numbered release introduced, judged as that
  // release against the ceilings: "GLIBC_ABI_DT_RELR" -> GLIBC 2.36.
  std::map<std::string, SymbolVersion> named_version_releases;
  // library -> symbols that must not be imported from it.
  std::map<std::string, std::set<std::string>> blacklisted_symbols;
  // Minimum macOS version per backend ("cpu", "metal") for darwin variants.
  std::map<std::string, Version> macos_minimum;
};

struct PythonPolicy {
  Version floor;  // e.g. 3.9
  // Stable ABI symbol -> version it was added in (from CPython's manifest).
  std::map<std::string, Version, std::less<>> stable_abi_symbols;
  // Standard library top-level module names.
  std::set<std::string, std::less<>> stdlib_modules;
  // Modules Torch installs by its own requirements (backend, or "all" ->
  // top-level import names: cuda -> triton, cuda), importable without a
  // python-depends entry.
  std::map<std::string, std::vector<std::string>> torch_bundled_modules;
  std::vector<AllowedPythonDependency> general_dependencies;
  std::map<std::string, std::vector<AllowedPythonDependency>> backend_dependencies;
};

// The CUDA capabilities a toolkit compiles when a component lists none
// (build-variants.md §5.1), for toolkits at or above `min_toolkit`.
struct CudaToolkitDefaults {
  Version min_toolkit;
  std::vector<std::string> capabilities;  // "12.1+PTX" marks the PTX one
};

struct Policy {
  std::string name;
  std::string description;
  std::string source;  // "embedded:rules/policies/hub.toml" or the file path given
  NativePolicy native;
  PythonPolicy python;
  PackageLayout package_layout = PackageLayout::top_level;
  std::vector<RequiredVariantSet> required_variants;
  // Torch stable-ABI shim function -> Torch version that introduced it.
  std::map<std::string, Version, std::less<>> torch_shim_versions;
  std::vector<std::string> cuda_supported_capabilities;
  std::vector<CudaToolkitDefaults> cuda_toolkit_defaults;  // newest toolkit first
  std::vector<std::string> rocm_supported_archs;           // "gfx90a", ...
  std::set<std::string> accepted_licenses;                 // lowercase Hub license ids
  // Whether a repository suppression may name a code prefix ("KP") instead of one rule.
  bool suppression_code_prefixes_allowed = false;
  // `kcheck run`: an op that was not verified is an error (KD007), not a
  // warning; `[harness] require-verified-ops`, or --require-verified.
  bool require_verified_ops = false;
  // Overlays: a rule's severity where the rule itself gives none ("KP006" ->
  // error under --security, checker/audit/security_profile.h; a policy
  // file's [severity] table).
  std::map<std::string, Severity, std::less<>> rule_severity;
  Severity severity_for(std::string_view code, Severity rule_default) const {
    const auto overlay = rule_severity.find(code);
    return overlay == rule_severity.end() ? rule_default : overlay->second;
  }
};

// A policy file that cannot be used; the message names the file and key.
class PolicyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `name_or_path` is an embedded policy name ("hub", "hub-legacy") or a path
// to a policy file of the same format. Throws PolicyError.
Policy load_policy(const std::string& name_or_path);
Policy parse_policy(std::string_view toml_text, const std::string& source);
std::vector<std::string> embedded_policy_names();

}  // namespace kcheck
