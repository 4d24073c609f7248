#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/support/version.h"

namespace kcheck {

// One [kernel.<name>] component of build.toml: sources for one backend.
struct KernelComponentSource {
  std::string name;
  std::string backend;
  std::vector<std::string> sources;            // relative to the kernel root
  std::vector<std::string> includes;           // relative to the kernel root
  std::vector<std::string> cuda_capabilities;  // empty: the toolkit's default set
  std::vector<std::string> cxx_flags;
  std::vector<std::string> cuda_flags;
  std::vector<std::string> rocm_archs;  // empty: every arch the policy and hipcc support
  std::vector<std::string> hip_flags;
  std::vector<std::string> depends;    // C++ dependencies: "torch", "cutlass_3_8", ...
  std::optional<Version> cuda_minver;  // the component is left out of builds with an older CUDA
};

// What the builder needs from a kernel source tree (taken from build.toml).
struct KernelSource {
  std::filesystem::path root;
  std::string name;  // kernel name, e.g. "rms-norm"; module = name with '-' as '_'
  long long version = 1;
  std::string license;
  std::vector<std::string> backends;
  // [torch-noarch]: Python only, one torch-<backend> variant per backend.
  bool noarch = false;
  std::vector<std::string> noarch_cuda_capabilities;    // [torch-noarch] cuda_capabilities (metadata archs)
  std::vector<std::string> noarch_rocm_archs;           // [torch-noarch] rocm_archs
  std::optional<Version> torch_minver, torch_maxver;    // [torch] minver / maxver
  std::optional<Version> cuda_minver, cuda_maxver;      // [general.cuda] minver / maxver
  std::vector<std::string> binding_sources;             // [torch] src
  std::vector<std::string> binding_includes;            // [torch] include
  std::vector<std::string> binding_cxx_flags;           // [torch] cxx-flags
  std::vector<std::string> python_extensions = {"py"};  // [torch] pyext (data extensions too)
  std::vector<std::string> python_depends;              // general
  std::map<std::string, std::vector<std::string>> backend_python_depends;
  std::vector<KernelComponentSource> components;
  // [torch] stable-abi: backend -> the Torch version whose stable ABI it
  // targets (the string form applies to every backend).
  std::map<std::string, Version> stable_abi;

  bool has_components_for(const std::string& backend) const {
    for (const KernelComponentSource& component : components)
      if (component.backend == backend) return true;
    return false;
  }

  std::string module_name() const {
    std::string module = name;
    for (char& c : module)
      if (c == '-') c = '_';
    return module;
  }
};

}  // namespace kcheck
