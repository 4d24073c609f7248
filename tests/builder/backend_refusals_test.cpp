// Backend planning (backend_plan.h) beyond build_planning_test.cpp: every
// reason a backend is refused on this machine, in the order checked, and the
// CUDA capability helpers the builder compiles with.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "checker/builder/backend_plan.h"
#include "checker/builder/kernel_builder.h"
#include "checker/config/config_values.h"
#include "checker/core/policy.h"

namespace kcheck {
namespace {

using Strings = std::vector<std::string>;

KernelSource kernel_with_components(const Strings& backends) {
  KernelSource kernel;
  kernel.name = "toy";
  kernel.backends = backends;
  for (const std::string& backend : backends) kernel.components.push_back({.name = backend, .backend = backend});
  return kernel;
}

// Torch 2.11 (a ROCm build, so ROCm compiles), CUDA 12.8 (8.0 and 9.0) and hipcc 6.3, all usable.
Toolchain full_toolchain() {
  Toolchain toolchain;
  toolchain.torch = TorchInstallation{"/torch", Version({2, 11, 0}), "2.11.0", true, "6.3.42131"};
  toolchain.cuda = CudaToolkit{"/usr/local/cuda", Version({12, 8}), {"8.0", "9.0"}};
  toolchain.rocm = RocmToolkit{"/opt/rocm/bin/hipcc", Version({6, 3}), "/opt/rocm/lib/libamdhip64.so"};
  toolchain.cpu = "x86_64";
  return toolchain;
}

// The single refusal of a one-backend kernel.
std::string refusal(const KernelSource& kernel, const Toolchain& toolchain) {
  const BackendPlan plan = plan_backends(kernel, {}, toolchain);
  EXPECT_TRUE(plan.build.empty());
  if (plan.cannot_build.size() != 1) return "(" + std::to_string(plan.cannot_build.size()) + " refusals)";
  EXPECT_EQ(plan.cannot_build[0].backend, kernel.backends.front());
  return plan.cannot_build[0].reason;
}

TEST(BackendRefusals, EveryCompiledBackendBuildsWithAFullToolchain) {
  const BackendPlan plan = plan_backends(kernel_with_components({"cpu", "cuda", "rocm"}), {}, full_toolchain());
  EXPECT_TRUE(plan.cannot_build.empty()) << describe_unbuildable(plan.cannot_build);
  ASSERT_EQ(plan.build.size(), 3u);
  for (const PlannedBackend& backend : plan.build) EXPECT_EQ(backend.kind, VariantBuildKind::compiled);
}

TEST(BackendRefusals, WithoutTorchNothingCompiledBuildsAndTheReasonIsTorchs) {
  Toolchain toolchain = full_toolchain();
  toolchain.torch.reset();
  toolchain.torch_problem = "no Torch in /venv (pass --torch)";
  for (const char* backend : {"cpu", "cuda", "rocm"})
    EXPECT_EQ(refusal(kernel_with_components({backend}), toolchain), "no Torch in /venv (pass --torch)") << backend;
}

TEST(BackendRefusals, MissingPythonHeadersAreTheReason) {
  Toolchain toolchain = full_toolchain();
  toolchain.python_problem = "no Python.h for /usr/bin/python3";
  EXPECT_EQ(refusal(kernel_with_components({"cpu"}), toolchain), "no Python.h for /usr/bin/python3");
}

TEST(BackendRefusals, TorchOutsideTheTorchRangeIsNamedWithTheBound) {
  KernelSource too_new = kernel_with_components({"cpu"});
  too_new.torch_maxver = Version({2, 10});
  EXPECT_EQ(refusal(too_new, full_toolchain()), "Torch 2.11 is newer than [torch] maxver 2.10");
  KernelSource too_old = kernel_with_components({"cpu"});
  too_old.torch_minver = Version({2, 12});
  EXPECT_EQ(refusal(too_old, full_toolchain()), "Torch 2.11 is older than [torch] minver 2.12");
  KernelSource within = kernel_with_components({"cpu"});
  within.torch_minver = Version({2, 11});
  within.torch_maxver = Version({2, 11});
  EXPECT_EQ(plan_backends(within, {}, full_toolchain()).build.size(), 1u) << "the bounds are inclusive";
}

TEST(BackendRefusals, CudaOlderThanGeneralCudaMinverIsRefused) {
  KernelSource kernel = kernel_with_components({"cuda"});
  kernel.cuda_minver = Version({13, 0});
  EXPECT_EQ(refusal(kernel, full_toolchain()), "CUDA 12.8 is older than [general.cuda] minver 13.0");
}

TEST(BackendRefusals, MissingCompilersAreNamedWithTheirProblem) {
  Toolchain toolchain = full_toolchain();
  toolchain.cuda.reset();
  toolchain.cuda_problem = "no nvcc under /usr/local/cuda";
  toolchain.rocm.reset();
  toolchain.rocm_problem = "no hipcc on PATH";
  EXPECT_EQ(refusal(kernel_with_components({"cuda"}), toolchain),
            "needs the CUDA toolkit (nvcc): no nvcc under /usr/local/cuda");
  EXPECT_EQ(refusal(kernel_with_components({"rocm"}), toolchain), "needs hipcc (ROCm): no hipcc on PATH");
  EXPECT_EQ(plan_backends(kernel_with_components({"cpu"}), {}, toolchain).build.size(), 1u) << "cpu needs neither";
}

// HIP sources compiled against a CUDA (or CPU) Torch's headers fail in the
// compiler, and the module would not match the ROCm Torch loading it (issue
// #30): refused before compiling, naming the Torch found; the rest builds.
TEST(BackendRefusals, RocmNeedsARocmBuildOfTorch) {
  Toolchain toolchain = full_toolchain();
  toolchain.torch->version_text = "2.11.0+cu130";
  toolchain.torch->hip_version = "";
  const BackendPlan plan = plan_backends(kernel_with_components({"cuda", "rocm"}), {}, toolchain);
  ASSERT_EQ(plan.build.size(), 1u);
  EXPECT_EQ(plan.build[0].backend, "cuda");
  ASSERT_EQ(plan.cannot_build.size(), 1u);
  EXPECT_EQ(plan.cannot_build[0].reason,
            "needs a ROCm build of Torch (torch.version.hip set); the Torch found, 2.11.0+cu130 in /torch, is not "
            "one: pass --torch with a ROCm Torch");
}

// Platform reasons come first: no installed tool changes them.
TEST(BackendRefusals, PlatformOnlyBackendsAreRefusedWhateverIsInstalled) {
  Toolchain without_torch;
  without_torch.torch_problem = "no Torch";
  without_torch.cpu = "x86_64";
  for (const char* backend : {"cann", "neuron", "tpu"}) {
    const std::string reason = refusal(kernel_with_components({backend}), without_torch);
    EXPECT_EQ(reason,
              std::string("has no compiled build configuration upstream (") + backend + " kernels are Python-only)")
        << backend;
  }
  EXPECT_EQ(refusal(kernel_with_components({"metal"}), without_torch).find("needs macOS with Xcode"), 0u);
  EXPECT_NE(refusal(kernel_with_components({"metal"}), without_torch).find("this is x86_64-linux"), std::string::npos);
  EXPECT_EQ(refusal(kernel_with_components({"xpu"}), without_torch).find("needs Intel oneAPI DPC++"), 0u);
}

TEST(BackendRefusals, RequestedBackendsAreBuiltInTheOrderAskedAndAloneAsked) {
  const KernelSource kernel = kernel_with_components({"cpu", "cuda", "rocm"});
  const BackendPlan plan = plan_backends(kernel, {"rocm", "cpu"}, full_toolchain());
  ASSERT_EQ(plan.build.size(), 2u);
  EXPECT_EQ(plan.build[0].backend, "rocm");
  EXPECT_EQ(plan.build[1].backend, "cpu");
}

TEST(BackendRefusals, UnknownOrUnlistedRequestsNameTheChoices) {
  const KernelSource kernel = kernel_with_components({"cpu", "cuda"});
  try {
    plan_backends(kernel, {"cpu", "vulkan"}, full_toolchain());
    FAIL() << "expected a BuildError";
  } catch (const BuildError& error) {
    EXPECT_EQ(std::string(error.what()),
              "unknown backend 'vulkan' (backends: cann, cpu, cuda, metal, neuron, rocm, tpu, xpu)");
  }
  try {
    plan_backends(kernel, {"rocm"}, full_toolchain());
    FAIL() << "expected a BuildError";
  } catch (const BuildError& error) {
    EXPECT_EQ(std::string(error.what()), "backend 'rocm' is not in build.toml's general.backends (cpu, cuda)");
  }
}

TEST(BackendRefusals, KnownBackendsAreThoseBuildTomlMayList) {
  Strings spec;
  for (std::string_view backend : build_config::all_backends()) spec.emplace_back(backend);
  Strings known = known_backends();
  std::sort(spec.begin(), spec.end());
  std::sort(known.begin(), known.end());
  EXPECT_EQ(known, spec) << "the builder and the build.toml schema agree on the backend names";
}

TEST(BackendRefusals, DescribeUnbuildableIsOneLineInOrder) {
  EXPECT_EQ(describe_unbuildable({}), "");
  EXPECT_EQ(describe_unbuildable({{"metal", "needs macOS"}, {"xpu", "needs oneAPI"}}),
            "metal: needs macOS; xpu: needs oneAPI");
}

// build_kernel refuses before anything is written: a backend asked for by
// name that cannot build, or nothing buildable at all.
class BuildKernelRefusal : public ::testing::Test {
 protected:
  KernelBuild build(const KernelSource& kernel, const Strings& backends) {
    BuildRequest request;
    request.kernel = kernel;
    request.backends = backends;
    request.unique_id = "0f1e2d3";
    output_ = std::filesystem::path(::testing::TempDir()) / "kcheck-refused-build";
    std::filesystem::remove_all(output_);
    request.output_dir = output_;
    request.scratch_dir = output_ / "scratch";
    Toolchain toolchain;  // nothing installed
    toolchain.torch_problem = "no Torch here";
    toolchain.cpu = "x86_64";
    return build_kernel(request, toolchain, load_policy("hub"), RuleRegistry(), [](const std::string&) {});
  }

  std::string refusal(const KernelSource& kernel, const Strings& backends) {
    try {
      build(kernel, backends);
    } catch (const BuildError& error) {
      EXPECT_FALSE(std::filesystem::exists(output_)) << "nothing is written for a refused build";
      return error.what();
    }
    return "(not refused)";
  }

  std::filesystem::path output_;
};

TEST_F(BuildKernelRefusal, NothingBuildableIsRefusedWithEveryReason) {
  const std::string why = refusal(kernel_with_components({"cpu", "metal"}), {});
  EXPECT_TRUE(why.starts_with("nothing to build on this machine: cpu: no Torch here; metal: needs macOS")) << why;
}

TEST_F(BuildKernelRefusal, ABackendAskedForByNameThatCannotBuildIsRefused) {
  const std::string why = refusal(kernel_with_components({"cpu", "neuron"}), {"neuron"});
  EXPECT_EQ(why,
            "cannot build on this machine: neuron: has no compiled build configuration upstream (neuron kernels "
            "are Python-only)");
}

// --- The CUDA capability helpers the builder compiles with -------------------

TEST(CudaCapabilityHelpers, WithoutPtxAndBaseStripWhatTheyName) {
  EXPECT_EQ(build_config::without_ptx("9.0a+PTX"), "9.0a");
  EXPECT_EQ(build_config::without_ptx("8.0+PTX"), "8.0");
  EXPECT_EQ(build_config::without_ptx("10.0"), "10.0");
  EXPECT_EQ(build_config::capability_base("9.0a+PTX"), "9.0");
  EXPECT_EQ(build_config::capability_base("10.0f"), "10.0");
  EXPECT_EQ(build_config::capability_base("8.6"), "8.6");
}

TEST(CudaCapabilityHelpers, ToolkitDefaultsComeFromTheNewestEntryTheToolkitReaches) {
  const std::vector<CudaToolkitDefaults> defaults = {
      {Version({13, 0}), {"8.0", "9.0", "10.0", "12.0+PTX"}},
      {Version({12, 8}), {"7.5", "8.0", "9.0", "10.0+PTX"}},
      {Version({12, 0}), {"7.0", "8.0", "9.0+PTX"}},
  };
  EXPECT_EQ(build_config::toolkit_default_capabilities(Version({13, 1}), defaults),
            (Strings{"8.0", "9.0", "10.0", "12.0+PTX"}));
  EXPECT_EQ(build_config::toolkit_default_capabilities(Version({12, 9}), defaults),
            (Strings{"7.5", "8.0", "9.0", "10.0+PTX"}));
  EXPECT_EQ(build_config::toolkit_default_capabilities(Version({12, 0}), defaults), (Strings{"7.0", "8.0", "9.0+PTX"}));
  EXPECT_EQ(build_config::toolkit_default_capabilities(Version({11, 8}), defaults), Strings{})
      << "below every entry: none (the builder then takes the policy's supported list)";
}

TEST(CudaCapabilityHelpers, ThePolicysDefaultsAreNewestFirstAndEachCompilesItsOwnTargets) {
  const Policy policy = load_policy("hub");
  ASSERT_FALSE(policy.cuda_toolkit_defaults.empty());
  for (std::size_t i = 1; i < policy.cuda_toolkit_defaults.size(); ++i)
    EXPECT_LT(policy.cuda_toolkit_defaults[i].min_toolkit, policy.cuda_toolkit_defaults[i - 1].min_toolkit)
        << "newest toolkit first, as toolkit_default_capabilities reads them";
  for (const CudaToolkitDefaults& entry : policy.cuda_toolkit_defaults) {
    Strings targets;
    for (const std::string& capability : entry.capabilities) targets.push_back(build_config::without_ptx(capability));
    EXPECT_EQ(build_config::intersect_cuda_capabilities(entry.capabilities, targets), entry.capabilities)
        << "CUDA " << entry.min_toolkit.str() << ": a component listing the defaults gets exactly them";
  }
}

}  // namespace
}  // namespace kcheck
