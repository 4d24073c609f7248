// The builder's decisions that need no compiler: which backends this machine
// builds and how (compiled, Python-only, or refused with a reason), the CUDA
// capabilities a component gets (build-variants.md §5.1), variant names of
// stable-ABI and Python-only builds, and C++ dependency resolution.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "checker/builder/backend_plan.h"
#include "checker/builder/cpp_dependencies.h"
#include "checker/builder/kernel_builder.h"
#include "checker/config/config_values.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

// --- CUDA capabilities: the upstream builder's loose intersection ---------

TEST(CudaCapabilities, EachTargetTakesTheHighestListedOfItsMajor) {
  EXPECT_EQ(build_config::intersect_cuda_capabilities({"7.5", "8.0", "8.6", "9.0"}, {"8.0", "8.9", "9.0"}),
            (Strings{"8.0", "8.6", "9.0"}));
}

TEST(CudaCapabilities, AnArchSpecificEntryTakesItsBasesPlace) {
  EXPECT_EQ(build_config::intersect_cuda_capabilities({"7.5", "8.0", "8.6", "9.0", "9.0a"}, {"8.0", "8.9", "9.0"}),
            (Strings{"8.0", "8.6", "9.0a"}));
  // 10.0a is dropped: 10.0 is not a target.
  EXPECT_EQ(build_config::intersect_cuda_capabilities({"9.0a", "10.0a"}, {"9.0"}), (Strings{"9.0a"}));
}

TEST(CudaCapabilities, PtxOnlyWhereListedAndItMayCrossMajors) {
  EXPECT_EQ(build_config::intersect_cuda_capabilities({"9.0"}, {"9.0"}), (Strings{"9.0"}));  // no +PTX added
  EXPECT_EQ(build_config::intersect_cuda_capabilities({"8.0+PTX"}, {"9.0"}), (Strings{"8.0+PTX"}));
  EXPECT_EQ(build_config::intersect_cuda_capabilities({"8.0", "10.0"}, {"9.0"}),
            Strings{});  // SASS never crosses majors
}

// --- Backend planning -------------------------------------------------------

KernelSource kernel_with(const Strings& backends, const Strings& component_backends) {
  KernelSource kernel;
  kernel.name = "toy";
  kernel.backends = backends;
  for (const std::string& backend : component_backends)
    kernel.components.push_back({.name = backend, .backend = backend});
  return kernel;
}

Toolchain cpu_only_toolchain() {
  Toolchain toolchain;
  toolchain.torch = TorchInstallation{"/torch", Version({2, 11, 0}), "2.11.0", true};
  toolchain.cuda_problem = "no nvcc";
  toolchain.rocm_problem = "no hipcc";
  toolchain.cpu = "x86_64";
  return toolchain;
}

TEST(BackendPlan, AMetalOnlyKernelIsRefusedWithTheReason) {
  BackendPlan plan = plan_backends(kernel_with({"metal"}, {"metal"}), {}, cpu_only_toolchain());
  EXPECT_TRUE(plan.build.empty());
  ASSERT_EQ(plan.cannot_build.size(), 1u);
  EXPECT_EQ(plan.cannot_build[0].backend, "metal");
  EXPECT_NE(plan.cannot_build[0].reason.find("needs macOS with Xcode"), std::string::npos)
      << plan.cannot_build[0].reason;
}

TEST(BackendPlan, EveryUnbuildableBackendIsNamedBesideTheBuildableOnes) {
  BackendPlan plan = plan_backends(kernel_with({"cuda", "metal", "cpu", "xpu"}, {"cuda", "metal", "cpu", "xpu"}), {},
                                   cpu_only_toolchain());
  ASSERT_EQ(plan.build.size(), 1u);
  EXPECT_EQ(plan.build[0].backend, "cpu");
  EXPECT_EQ(plan.build[0].kind, VariantBuildKind::compiled);
  ASSERT_EQ(plan.cannot_build.size(), 3u);
  const std::string described = describe_unbuildable(plan.cannot_build);
  EXPECT_NE(described.find("cuda: needs the CUDA toolkit (nvcc): no nvcc"), std::string::npos) << described;
  EXPECT_NE(described.find("metal: needs macOS"), std::string::npos) << described;
  EXPECT_NE(described.find("xpu: needs Intel oneAPI"), std::string::npos) << described;
}

TEST(BackendPlan, NoarchKernelsAndBackendsWithoutComponentsArePythonOnly) {
  KernelSource noarch = kernel_with({"cpu", "cuda", "metal", "xpu", "tpu"}, {});
  noarch.noarch = true;
  BackendPlan plan = plan_backends(noarch, {}, cpu_only_toolchain());
  EXPECT_TRUE(plan.cannot_build.empty());
  ASSERT_EQ(plan.build.size(), 5u);
  for (const PlannedBackend& backend : plan.build)
    EXPECT_EQ(backend.kind, VariantBuildKind::python_only) << backend.backend;

  BackendPlan mixed = plan_backends(kernel_with({"cpu", "rocm"}, {"cpu"}), {}, cpu_only_toolchain());
  ASSERT_EQ(mixed.build.size(), 2u);
  EXPECT_EQ(mixed.build[1].backend, "rocm");
  EXPECT_EQ(mixed.build[1].kind, VariantBuildKind::python_only);
}

TEST(BackendPlan, RequestedNamesAreCheckedAgainstTheSpecAndBuildToml) {
  const KernelSource kernel = kernel_with({"cpu", "metal"}, {"cpu", "metal"});
  EXPECT_THROW(plan_backends(kernel, {"opencl"}, cpu_only_toolchain()), BuildError);
  EXPECT_THROW(plan_backends(kernel, {"cuda"}, cpu_only_toolchain()), BuildError);  // not in general.backends
  BackendPlan plan = plan_backends(kernel, {"metal"}, cpu_only_toolchain());
  EXPECT_TRUE(plan.build.empty());
  EXPECT_EQ(plan.cannot_build.size(), 1u);
}

TEST(BackendPlan, CudaOutsideGeneralCudaRangeIsNotBuildable) {
  KernelSource kernel = kernel_with({"cuda"}, {"cuda"});
  kernel.cuda_maxver = Version({12, 9});
  Toolchain toolchain = cpu_only_toolchain();
  toolchain.cuda = CudaToolkit{"/usr/local/cuda", Version({13, 0}), {"9.0"}};
  BackendPlan plan = plan_backends(kernel, {}, toolchain);
  ASSERT_EQ(plan.cannot_build.size(), 1u);
  EXPECT_NE(plan.cannot_build[0].reason.find("newer than [general.cuda] maxver 12.9"), std::string::npos)
      << plan.cannot_build[0].reason;
}

// --- Variant names ----------------------------------------------------------

TEST(VariantName, StableAbiAndPythonOnlyNames) {
  Toolchain toolchain = cpu_only_toolchain();
  toolchain.cuda = CudaToolkit{"/usr/local/cuda", Version({13, 0}), {"9.0"}};
  EXPECT_EQ(variant_name_for("cuda", toolchain, VariantBuildKind::compiled, Version({2, 10})),
            "torch-stable-abi210-cu130-x86_64-linux");
  EXPECT_EQ(variant_name_for("cpu", toolchain), "torch211-cxx11-cpu-x86_64-linux");
  EXPECT_EQ(variant_name_for("metal", toolchain, VariantBuildKind::python_only), "torch-metal");
  EXPECT_EQ(variant_name_for("cann", toolchain, VariantBuildKind::python_only), "torch-npu");
}

// --- C++ dependencies -------------------------------------------------------

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The builder resolves every name build.toml's schema accepts (config_values' list).
TEST(CppDependencies, EveryNameTheSchemaAcceptsIsResolvable) {
  for (std::string_view name : build_config::cpp_dependencies())
    EXPECT_NE(find_cpp_dependency(std::string(name)), nullptr) << name;
  EXPECT_EQ(find_cpp_dependency("cutlass"), nullptr);
}

TEST(CppDependencies, UnknownOrUnservedVersionsAreClearErrors) {
  const fs::path deps = fresh_dir("kcheck_deps_unserved");
  int calls = 0;
  CommandRunner counting = [&calls](const std::vector<std::string>&) {
    ++calls;
    return CommandResult{0, ""};
  };
  EXPECT_THROW(resolve_cpp_dependency("cutlass_9_9", deps, "python3", counting), BuildError);
  try {
    resolve_cpp_dependency("cutlass_4_0", deps, "python3", counting);
    FAIL() << "expected a BuildError";
  } catch (const BuildError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("CUTLASS 4.0.0, which PyPI's nvidia-cutlass does not serve"), std::string::npos) << message;
    EXPECT_NE(message.find((deps / "cutlass-4.0.0/include").string()), std::string::npos) << message;
  }
  EXPECT_EQ(calls, 0);  // nothing was downloaded for either
}

TEST(CppDependencies, HeadersAlreadyInTheDepsDirAreUsedAsTheyAre) {
  const fs::path deps = fresh_dir("kcheck_deps_present");
  fs::create_directories(deps / "cutlass-4.0.0/include/cutlass");
  CommandRunner never = [](const std::vector<std::string>& argv) -> CommandResult {
    ADD_FAILURE() << "ran " << argv[0];
    return {1, ""};
  };
  ResolvedCppDependency resolved = resolve_cpp_dependency("cutlass_4_0", deps, "python3", never);
  EXPECT_FALSE(resolved.fetched);
  EXPECT_EQ(resolved.include_dirs, (std::vector<fs::path>{deps / "cutlass-4.0.0/include"}));
  EXPECT_TRUE(resolve_cpp_dependency("torch", deps, "python3", never).include_dirs.empty());
}

TEST(CppDependencies, AServedVersionIsDownloadedAndUnpackedIntoTheCache) {
  const fs::path deps = fresh_dir("kcheck_deps_fetch");
  std::vector<std::vector<std::string>> commands;
  CommandRunner fake_pip = [&commands](const std::vector<std::string>& argv) {
    commands.push_back(argv);
    if (argv[2] == "pip") {  // python -m pip download ... -d DIR package==version
      const fs::path download = argv[argv.size() - 2];
      std::ofstream(download / "nvidia_cutlass-3.8.0.0-py3-none-any.whl") << "wheel";
    } else {  // python -c UNPACK WHEEL STAGING
      fs::create_directories(fs::path(argv.back()) / "include/cute");
      fs::create_directories(fs::path(argv.back()) / "tools/util/include/cutlass/util");
    }
    return CommandResult{0, ""};
  };
  ResolvedCppDependency resolved = resolve_cpp_dependency("cutlass_3_8", deps, "/venv/bin/python", fake_pip);
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0].back(), "nvidia-cutlass==3.8.0.0");
  EXPECT_TRUE(resolved.fetched);
  EXPECT_EQ(resolved.include_dirs,
            (std::vector<fs::path>{deps / "cutlass-3.8.0/include", deps / "cutlass-3.8.0/tools/util/include"}));
  EXPECT_EQ(std::distance(fs::directory_iterator(deps), fs::directory_iterator()), 1) << "only cutlass-3.8.0/ is left";
  // The second build finds it in the cache.
  EXPECT_FALSE(resolve_cpp_dependency("cutlass_3_8", deps, "/venv/bin/python", fake_pip).fetched);
  EXPECT_EQ(commands.size(), 2u);
}

TEST(CppDependencies, AFailedDownloadNamesThePackageAndTheWayOut) {
  const fs::path deps = fresh_dir("kcheck_deps_offline");
  CommandRunner offline = [](const std::vector<std::string>&) { return CommandResult{1, "No matching distribution"}; };
  try {
    resolve_cpp_dependency("cutlass_3_6", deps, "python3", offline);
    FAIL() << "expected a BuildError";
  } catch (const BuildError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cannot download nvidia-cutlass==3.6.0.0"), std::string::npos) << message;
    EXPECT_NE(message.find("No matching distribution"), std::string::npos) << message;
  }
  EXPECT_TRUE(fs::is_empty(deps)) << "no download or staging directory is left behind";
}

}  // namespace
}  // namespace kcheck
