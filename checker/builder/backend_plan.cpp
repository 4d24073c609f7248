#include "checker/builder/backend_plan.h"

#include <algorithm>

#include "checker/builder/kernel_builder.h"

namespace kcheck {

namespace {

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

// Torch [minver, maxver] of build.toml against the Torch found.
std::string torch_range_problem(const KernelSource& kernel, const TorchInstallation& torch) {
  const Version used({torch.version.major(), torch.version.minor()});
  if (kernel.torch_minver && used < *kernel.torch_minver)
    return "Torch " + used.str() + " is older than [torch] minver " + kernel.torch_minver->str();
  if (kernel.torch_maxver && *kernel.torch_maxver < used)
    return "Torch " + used.str() + " is newer than [torch] maxver " + kernel.torch_maxver->str();
  return {};
}

// What no machine of this kind can build, whatever is installed; empty otherwise.
std::string platform_problem(const std::string& backend, const Toolchain& toolchain) {
  if (backend == "metal")
    return "needs macOS with Xcode (the Metal shader compiler, metal-cpp and an MPS build of Torch); this is " +
           toolchain.cpu + "-" + toolchain.os;
  if (backend == "xpu")
    return "needs Intel oneAPI DPC++ (icpx with SYCL) and an XPU build of Torch, which kcheck build does not drive";
  if (backend != "cpu" && backend != "cuda" && backend != "rocm")
    return "has no compiled build configuration upstream (" + backend + " kernels are Python-only)";
  return {};
}

// Why this machine cannot compile `backend`'s components; empty when it can.
std::string compiled_backend_problem(const KernelSource& kernel, const std::string& backend,
                                     const Toolchain& toolchain) {
  if (std::string problem = platform_problem(backend, toolchain); !problem.empty()) return problem;
  if (!toolchain.torch) return toolchain.torch_problem;
  if (!toolchain.python_problem.empty()) return toolchain.python_problem;
  if (std::string problem = torch_range_problem(kernel, *toolchain.torch); !problem.empty()) return problem;
  if (backend == "cpu") return {};
  if (backend == "cuda") {
    if (!toolchain.cuda) return "needs the CUDA toolkit (nvcc): " + toolchain.cuda_problem;
    const Version used({toolchain.cuda->version.major(), toolchain.cuda->version.minor()});
    if (kernel.cuda_minver && used < *kernel.cuda_minver)
      return "CUDA " + used.str() + " is older than [general.cuda] minver " + kernel.cuda_minver->str();
    if (kernel.cuda_maxver && *kernel.cuda_maxver < used)
      return "CUDA " + used.str() + " is newer than [general.cuda] maxver " + kernel.cuda_maxver->str() +
             " (pass --cuda with an older toolkit)";
    return {};
  }
  if (!toolchain.rocm) return "needs hipcc (ROCm): " + toolchain.rocm_problem;
  // Compiled against a CUDA or CPU Torch's headers, HIP sources that include
  // ATen's CUDA headers fail in the compiler (CUDA's vector_types.h against
  // HIP's), and the module would not match the ROCm Torch that loads it.
  if (toolchain.torch->hip_version.empty() && !toolchain.rocm_with_foreign_torch)
    return "needs a ROCm build of Torch (torch.version.hip set); the Torch found, " + toolchain.torch->version_text +
           " in " + toolchain.torch->package_dir.string() + ", is not one: pass --torch with a ROCm Torch";
  return {};
}

}  // namespace

const std::vector<std::string>& known_backends() {
  static const std::vector<std::string> backends = {"cann", "cpu", "cuda", "metal", "neuron", "rocm", "tpu", "xpu"};
  return backends;
}

BackendPlan plan_backends(const KernelSource& kernel, const std::vector<std::string>& requested,
                          const Toolchain& toolchain) {
  for (const std::string& backend : requested) {
    if (!contains(known_backends(), backend))
      throw BuildError("unknown backend '" + backend + "' (backends: " + joined(known_backends()) + ")");
    if (!contains(kernel.backends, backend))
      throw BuildError("backend '" + backend + "' is not in build.toml's general.backends (" + joined(kernel.backends) +
                       ")");
  }
  BackendPlan plan;
  for (const std::string& backend : requested.empty() ? kernel.backends : requested) {
    // A [torch-noarch] kernel, or a [torch] backend without components, ships its Python package alone
    // (build-variants.md §2.3): nothing to compile, so every machine builds it.
    if (kernel.noarch || !kernel.has_components_for(backend)) {
      plan.build.push_back({backend, VariantBuildKind::python_only});
      continue;
    }
    if (std::string problem = compiled_backend_problem(kernel, backend, toolchain); !problem.empty())
      plan.cannot_build.push_back({backend, problem});
    else
      plan.build.push_back({backend, VariantBuildKind::compiled});
  }
  return plan;
}

std::string describe_unbuildable(const std::vector<UnbuildableBackend>& backends) {
  std::string text;
  for (const UnbuildableBackend& backend : backends)
    text += (text.empty() ? "" : "; ") + backend.backend + ": " + backend.reason;
  return text;
}

}  // namespace kcheck
