#pragma once
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/builder/kernel_source.h"
#include "checker/builder/symbol_pinning.h"
#include "checker/builder/toolchain.h"
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
  unsigned jobs = 0;                           // 0: one per hardware thread
};

// What happened to one variant.
struct VariantBuild {
  std::string variant;  // torch211-cxx11-cpu-x86_64-linux
  std::string id;       // _relu_cpu_3f9a1c2
  std::string backend;
  std::filesystem::path directory;
  std::vector<std::string> gpu_archs;  // compiled CUDA capabilities / ROCm archs (metadata backend.archs)
  SymbolPinningPlan pinning;
  bool built = false;
  std::string failure;  // why it was not built, with the tail of the tool's output
  Report audit;         // the self-audit of what was written (when built)
};

// Progress lines for the user (the CLI prints them; the library never does).
using BuildProgress = std::function<void(const std::string&)>;

// Builds one variant per backend (cpu, cuda, rocm), each conformant by
// construction: abi3 for the policy's Python floor, only PyInit_<id>
// exported, no RPATH, C++ runtime linked statically, imported symbol versions
// pinned within the policy's ceilings; then writes the variant directory with
// metadata.json and its digest and audits it (every rule but required-variant
// completeness). A rocm variant's device code is compiled by hipcc; its Torch
// glue links against the Torch found (a CPU/CUDA Torch when no ROCm Torch is
// installed: then the variant is an audit fixture, not loadable on ROCm).
std::vector<VariantBuild> build_kernel(const BuildRequest& request, const Toolchain& toolchain, const Policy& policy,
                                       const RuleRegistry& rules, const BuildProgress& progress);

// The variant directory name this host gives a backend's build.
std::string variant_name_for(const std::string& backend, const Toolchain& toolchain);

}  // namespace kcheck
