#pragma once
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/builder/backend_plan.h"
#include "checker/builder/kernel_source.h"
#include "checker/builder/symbol_pinning.h"
#include "checker/builder/toolchain.h"
#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/report.h"
#include "checker/core/rule_registry.h"

namespace kcheck {

// The build cannot start (no Torch, unknown backend, unwritable output).
class BuildError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct BuildRequest {
  KernelSource kernel;
  std::vector<std::string> backends;           // empty: every backend of build.toml this host can build
  std::vector<std::string> cuda_capabilities;  // empty: build.toml's, else the supported default set
  std::vector<std::string> rocm_archs;         // empty: build.toml's, else the policy's list (∩ hipcc's)
  std::string unique_id;                       // empty: git tree hash or random material
  std::filesystem::path output_dir;            // <kernel>/build
  std::filesystem::path scratch_dir;           // generated CMake projects and objects
  std::filesystem::path deps_dir;              // C++ dependencies' headers (empty: default_deps_dir())
  std::chrono::seconds build_timeout{std::chrono::hours(2)};  // per variant compile; past it the build fails
  unsigned jobs = 0;                                          // 0: one per hardware thread
  AuditOptions self_audit;  // how each written variant is audited (--strict, --select, ...)
};

// What happened to one variant.
struct VariantBuild {
  std::string variant;  // torch211-cxx11-cpu-x86_64-linux
  std::string id;       // _relu_cpu_3f9a1c2
  std::string backend;
  VariantBuildKind kind = VariantBuildKind::compiled;
  std::filesystem::path directory;
  std::vector<std::string> gpu_archs;  // compiled CUDA capabilities / ROCm archs (metadata backend.archs)
  SymbolPinningPlan pinning;
  bool built = false;
  std::string failure;        // why it was not built: the first failing command and its full diagnostics
  std::filesystem::path log;  // the whole build log (compiled variants)
  Report audit;               // the self-audit of what was written (when built)
};

// What `kcheck build` did: the variants it built (or tried to), and the
// backends of build.toml this machine cannot build, with why.
struct KernelBuild {
  std::vector<VariantBuild> variants;
  std::vector<UnbuildableBackend> skipped;
};

// Progress lines for the user (the CLI prints them; the library never does).
using BuildProgress = std::function<void(const std::string&)>;

// Builds one variant per backend: compiled (cpu, cuda, rocm), each conformant by
// construction: abi3 for the policy's Python floor, only PyInit_<id>
// exported, no RPATH, C++ runtime linked statically, imported symbol versions
// pinned within the policy's ceilings; then writes the variant directory with
// metadata.json and its digest and audits it (every rule but required-variant
// completeness). A rocm variant's device code is compiled by hipcc; its Torch
// glue links against the Torch found (a CPU/CUDA Torch when no ROCm Torch is
// installed: then the variant is an audit fixture, not loadable on ROCm).
// A backend with [torch] stable-abi builds torch-stable-abi<XY>-… against
// that ABI (TORCH_TARGET_VERSION), and a [torch-noarch] kernel (or a backend
// without components) a Python-only torch-<backend> variant. Backends this
// machine cannot build are skipped with their reason when none was asked for
// by name; throws BuildError when nothing can be built, or a named one cannot.
KernelBuild build_kernel(const BuildRequest& request, const Toolchain& toolchain, const Policy& policy,
                         const RuleRegistry& rules, const BuildProgress& progress);

// The variant directory name this host gives a backend's build:
// torch211-cxx11-cu130-x86_64-linux, torch-stable-abi210-cu130-x86_64-linux
// (`stable_abi` set), torch-cuda (python_only).
std::string variant_name_for(const std::string& backend, const Toolchain& toolchain,
                             VariantBuildKind kind = VariantBuildKind::compiled,
                             const std::optional<Version>& stable_abi = std::nullopt);

}  // namespace kcheck
