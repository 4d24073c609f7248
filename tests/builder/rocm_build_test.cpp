// The builder's ROCm parts that need no Torch: choosing the archs, finding
// hipcc, naming the variant. The reference kernels' rocm builds are CTest
// tests (reference_build_rocm_*).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "checker/builder/gpu_archs.h"
#include "checker/builder/kernel_builder.h"
#include "checker/builder/toolchain.h"
#include "checker/core/policy.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

using Archs = std::vector<std::string>;

bool rocm52_supports(const std::string& arch) {
  return arch == "gfx906" || arch == "gfx908" || arch == "gfx90a" || arch == "gfx1030";
}

TEST(RocmArchSelection, ListedArchsMeetPolicyAndCompiler) {
  const Archs policy_archs = load_policy("hub").rocm_supported_archs;
  RocmArchSelection selection =
      select_rocm_archs({}, {"gfx90a", "gfx942", "gfx1030", "gfx1036", "gfx90a"}, policy_archs, rocm52_supports);
  EXPECT_EQ(selection.archs, (Archs{"gfx90a", "gfx1030"}));
  EXPECT_EQ(selection.compiler_cannot_build, (Archs{"gfx942"}));
  EXPECT_EQ(selection.outside_policy, (Archs{"gfx1036"}));
}

TEST(RocmArchSelection, NothingListedMeansThePolicysArchs) {
  const Archs policy_archs = load_policy("hub").rocm_supported_archs;
  RocmArchSelection selection = select_rocm_archs({}, {}, policy_archs, rocm52_supports);
  EXPECT_EQ(selection.archs, (Archs{"gfx906", "gfx908", "gfx90a", "gfx1030"}));
  EXPECT_EQ(selection.compiler_cannot_build, (Archs{"gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1200", "gfx1201"}));
}

TEST(RocmArchSelection, RequestedArchsOverrideBuildToml) {
  const Archs policy_archs = load_policy("hub").rocm_supported_archs;
  EXPECT_EQ(select_rocm_archs({"gfx1030"}, {"gfx90a"}, policy_archs, rocm52_supports).archs, (Archs{"gfx1030"}));
}

TEST(RocmArchSelection, NoArchLeftIsABuildErrorNamingWhy) {
  const Archs policy_archs = load_policy("hub").rocm_supported_archs;
  try {
    select_rocm_archs({}, {"gfx942", "gfx1100", "gfx803"}, policy_archs, rocm52_supports);
    FAIL() << "expected a BuildError";
  } catch (const BuildError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("hipcc cannot compile: gfx942, gfx1100"), std::string::npos) << message;
    EXPECT_NE(message.find("not supported by the policy: gfx803"), std::string::npos) << message;
  }
}

// A ROCm root holding a stand-in hipcc that prints `version_output`.
fs::path fake_rocm_root(const std::string& name, const std::string& version_output, bool with_runtime) {
  fs::path root = fs::path(::testing::TempDir()) / ("kcheck_fake_rocm_" + name);
  fs::remove_all(root);
  fs::create_directories(root / "bin");
  fs::create_directories(root / "lib");
  {
    std::ofstream script(root / "bin/hipcc");
    script << "#!/bin/sh\necho '" << version_output << "'\n";
  }
  ::chmod((root / "bin/hipcc").c_str(), 0755);
  if (with_runtime) std::ofstream(root / "lib/libamdhip64.so") << "";
  return root;
}

TEST(FindRocm, ReadsTheHipVersionAndTheRuntimeNextToIt) {
  const fs::path root = fake_rocm_root("ok", "HIP version: 6.4.43482-0", true);
  std::string problem;
  std::optional<RocmToolkit> rocm = find_rocm(root, problem);
  ASSERT_TRUE(rocm) << problem;
  EXPECT_EQ(rocm->version, Version({6, 4}));
  EXPECT_EQ(rocm->hipcc, root / "bin/hipcc");
  EXPECT_EQ(rocm->runtime_library, root / "lib/libamdhip64.so");
}

TEST(FindRocm, AHipccWithoutVersionIsExplained) {
  const fs::path root = fake_rocm_root("noversion", "clang version 17", true);
  std::string problem;
  EXPECT_FALSE(find_rocm(root, problem));
  EXPECT_NE(problem.find("names no HIP version"), std::string::npos) << problem;
}

TEST(FindRocm, AMissingHipccIsExplained) {
  std::string problem;
  EXPECT_FALSE(find_rocm(fs::path(::testing::TempDir()) / "kcheck_no_rocm_here", problem));
  EXPECT_NE(problem.find("no HIP compiler (hipcc) at"), std::string::npos) << problem;
}

TEST(VariantName, RocmTokenComesFromTheHipVersion) {
  Toolchain toolchain;
  toolchain.torch = TorchInstallation{"/torch", Version({2, 11, 0}), "2.11.0", true};
  toolchain.rocm = RocmToolkit{"/usr/bin/hipcc", Version({5, 2}), "/usr/lib/libamdhip64.so"};
  toolchain.cpu = "x86_64";
  EXPECT_EQ(variant_name_for("rocm", toolchain), "torch211-cxx11-rocm52-x86_64-linux");
}

// A ROCm build of Torch says so in version.py (torch.version.hip); CUDA and
// CPU builds write None. Only a ROCm Torch builds rocm variants.
TEST(TorchHipVersion, ReadFromVersionPyAsTorchWritesIt) {
  EXPECT_EQ(torch_hip_version("__version__ = '2.11.0+rocm6.4'\ncuda: Optional[str] = None\n"
                              "hip: Optional[str] = '6.4.43482'\nrocm: Optional[str] = '6.4'\n"),
            "6.4.43482");
  EXPECT_EQ(
      torch_hip_version("__version__ = '2.11.0+cu130'\ncuda: Optional[str] = '13.0'\nhip: Optional[str] = None\n"), "");
  EXPECT_EQ(torch_hip_version("hip = \"5.7.1\"\n"), "5.7.1") << "older Torch: no annotation";
  EXPECT_EQ(torch_hip_version("hipster = '1'\n# hip = '2'\n"), "") << "only the hip line itself";
  EXPECT_EQ(torch_hip_version(""), "");
}

// The host's hipcc, when there is one (Debian 12's is ROCm 5.2: gfx90a yes,
// gfx942 no).
TEST(HipccProbe, AcceptsKnownArchsAndRejectsUnknownOnes) {
  std::string problem;
  std::optional<RocmToolkit> rocm = find_rocm({}, problem);
  if (!rocm) GTEST_SKIP() << problem;
  EXPECT_TRUE(hipcc_supports_arch(*rocm, "gfx90a"));
  EXPECT_FALSE(hipcc_supports_arch(*rocm, "gfx9999"));
  if (rocm->version < Version({6, 0})) {
    EXPECT_FALSE(hipcc_supports_arch(*rocm, "gfx942"));
  }
}

}  // namespace
}  // namespace kcheck
