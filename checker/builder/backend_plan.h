#pragma once
#include <string>
#include <vector>

#include "checker/builder/kernel_source.h"
#include "checker/builder/toolchain.h"

namespace kcheck {

// Every backend name build.toml may list (build-toml.md §1, Backend).
const std::vector<std::string>& known_backends();

// What a backend's variant is made of.
enum class VariantBuildKind {
  compiled,     // torch<XY>-cxx11-… or torch-stable-abi<XY>-…: a native module
  python_only,  // torch-<backend>: the Python package alone ([torch-noarch], or no component for the backend)
};

struct PlannedBackend {
  std::string backend;
  VariantBuildKind kind = VariantBuildKind::compiled;
};

// A backend this machine cannot build, and why ("metal: needs macOS with Xcode").
struct UnbuildableBackend {
  std::string backend;
  std::string reason;
};

struct BackendPlan {
  std::vector<PlannedBackend> build;
  std::vector<UnbuildableBackend> cannot_build;
};

// Decides, for each backend asked for (`requested`, else every backend of
// build.toml), whether this machine builds it and how. Throws BuildError for
// a name that is no backend or not in general.backends.
BackendPlan plan_backends(const KernelSource& kernel, const std::vector<std::string>& requested,
                          const Toolchain& toolchain);

// "cannot build on this machine: metal: needs …; xpu: needs …" (one line).
std::string describe_unbuildable(const std::vector<UnbuildableBackend>& backends);

}  // namespace kcheck
