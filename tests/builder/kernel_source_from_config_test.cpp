// What `kcheck build` takes from build.toml (kernel_source_from_config.h):
// every value it compiles with, and the build.toml files it refuses, with why.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "checker/builder/kernel_builder.h"
#include "checker/builder/kernel_source_from_config.h"
#include "checker/kinds/build_config_facts.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

// A kernel directory holding `build_toml` and the files `files` names (empty).
fs::path kernel_dir(const std::string& name, const std::string& build_toml, const Strings& files = {}) {
  fs::path dir = fs::path(::testing::TempDir()) / ("kcheck-source-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  if (!build_toml.empty()) std::ofstream(dir / "build.toml") << build_toml;
  for (const std::string& file : files) {
    fs::create_directories((dir / file).parent_path());
    std::ofstream(dir / file) << "\n";
  }
  return dir;
}

std::string problems_of(const BuildConfigFacts& config) {
  std::string text = config.parse_error;
  for (const ConfigProblem& problem : config.schema_problems) text += "\n" + problem.key + ": " + problem.message;
  return text;
}

std::string refusal(const fs::path& dir) {
  try {
    kernel_source_from_config(read_build_config(dir));
  } catch (const BuildError& error) {
    return error.what();
  }
  return "(not refused)";
}

const char* kTorchKernel = R"([general]
name = "toy-kernel"
version = 3
edition = 5
license = "apache-2.0"
backends = ["cpu", "cuda"]
python-depends = ["einops"]

[general.cuda]
minver = "12.6"
maxver = "13.2"
python-depends = ["nvidia-cutlass-dsl"]

[torch]
src = ["torch-ext/torch_binding.cpp"]
include = ["include"]
cxx-flags = ["-DTOY=1"]
pyext = ["py", "pyi", "json"]
minver = "2.10"
maxver = "2.13"

[kernel.toy_cpu]
backend = "cpu"
depends = ["torch"]
src = ["toy_cpu/toy.cpp"]
include = ["toy_cpu"]
cxx-flags = ["-O2"]

[kernel.toy_cuda]
backend = "cuda"
depends = ["torch"]
src = ["toy_cuda/toy.cu"]
cuda-capabilities = ["8.0", "9.0a+PTX"]
cuda-flags = ["-lineinfo"]
cuda-minver = "12.8"
)";

const Strings kTorchKernelFiles = {"torch-ext/torch_binding.cpp", "torch-ext/toy_kernel/__init__.py", "include/toy.h",
                                   "toy_cpu/toy.cpp", "toy_cuda/toy.cu"};

TEST(KernelSourceFromConfig, TakesEveryValueTheBuilderUses) {
  const fs::path dir = kernel_dir("torch", kTorchKernel, kTorchKernelFiles);
  const BuildConfigFacts config = read_build_config(dir);
  ASSERT_TRUE(config.usable()) << problems_of(config);
  const KernelSource kernel = kernel_source_from_config(config);

  EXPECT_EQ(kernel.root, fs::absolute(dir).lexically_normal());
  EXPECT_EQ(kernel.name, "toy-kernel");
  EXPECT_EQ(kernel.module_name(), "toy_kernel");
  EXPECT_EQ(kernel.version, 3);
  EXPECT_EQ(kernel.license, "apache-2.0");
  EXPECT_EQ(kernel.backends, (Strings{"cpu", "cuda"}));
  EXPECT_FALSE(kernel.noarch);
  EXPECT_EQ(kernel.torch_minver, Version({2, 10}));
  EXPECT_EQ(kernel.torch_maxver, Version({2, 13}));
  EXPECT_EQ(kernel.cuda_minver, Version({12, 6}));
  EXPECT_EQ(kernel.cuda_maxver, Version({13, 2}));
  EXPECT_EQ(kernel.binding_sources, (Strings{"torch-ext/torch_binding.cpp"}));
  EXPECT_EQ(kernel.binding_includes, (Strings{"include"}));
  EXPECT_EQ(kernel.binding_cxx_flags, (Strings{"-DTOY=1"}));
  EXPECT_EQ(kernel.python_extensions, (Strings{"py", "json"})) << "*.py always; *.pyi never ships compiled";
  EXPECT_EQ(kernel.python_depends, (Strings{"einops"}));
  EXPECT_EQ(kernel.backend_python_depends.at("cuda"), (Strings{"nvidia-cutlass-dsl"}));
  EXPECT_TRUE(kernel.stable_abi.empty());

  ASSERT_EQ(kernel.components.size(), 2u);
  const KernelComponentSource& cpu = kernel.components[0];
  EXPECT_EQ(cpu.name, "toy_cpu");
  EXPECT_EQ(cpu.backend, "cpu");
  EXPECT_EQ(cpu.sources, (Strings{"toy_cpu/toy.cpp"}));
  EXPECT_EQ(cpu.includes, (Strings{"toy_cpu"}));
  EXPECT_EQ(cpu.cxx_flags, (Strings{"-O2"}));
  EXPECT_EQ(cpu.depends, (Strings{"torch"}));
  EXPECT_FALSE(cpu.cuda_minver);
  const KernelComponentSource& cuda = kernel.components[1];
  EXPECT_EQ(cuda.backend, "cuda");
  EXPECT_EQ(cuda.cuda_capabilities, (Strings{"8.0", "9.0a+PTX"}));
  EXPECT_EQ(cuda.cuda_flags, (Strings{"-lineinfo"}));
  EXPECT_EQ(cuda.cuda_minver, Version({12, 8}));
  EXPECT_TRUE(kernel.has_components_for("cuda"));
  EXPECT_FALSE(kernel.has_components_for("rocm"));
}

TEST(KernelSourceFromConfig, StableAbiAppliesToEveryBackendOrToThoseNamed) {
  const std::string general =
      "[general]\nname = \"toy\"\nversion = 1\nedition = 5\nlicense = \"apache-2.0\"\nbackends = [\"cpu\", "
      "\"cuda\"]\n\n";
  const Strings files = {"torch-ext/torch_binding.cpp", "torch-ext/toy/__init__.py"};
  const fs::path all = kernel_dir(
      "stable-all", general + "[torch]\nsrc = [\"torch-ext/torch_binding.cpp\"]\nstable-abi = \"2.10\"\n", files);
  const BuildConfigFacts all_config = read_build_config(all);
  ASSERT_TRUE(all_config.usable()) << problems_of(all_config);
  const KernelSource every = kernel_source_from_config(all_config);
  ASSERT_EQ(every.stable_abi.size(), 2u);
  EXPECT_EQ(every.stable_abi.at("cpu"), Version({2, 10}));
  EXPECT_EQ(every.stable_abi.at("cuda"), Version({2, 10}));

  const fs::path named = kernel_dir(
      "stable-named",
      general + "[torch]\nsrc = [\"torch-ext/torch_binding.cpp\"]\n\n[torch.stable-abi]\ncpu = \"2.10\"\n", files);
  const BuildConfigFacts named_config = read_build_config(named);
  ASSERT_TRUE(named_config.usable()) << problems_of(named_config);
  const KernelSource one = kernel_source_from_config(named_config);
  ASSERT_EQ(one.stable_abi.size(), 1u);
  EXPECT_EQ(one.stable_abi.at("cpu"), Version({2, 10}));
}

TEST(KernelSourceFromConfig, NoarchKernelsKeepTheirListedArchs) {
  const fs::path dir = kernel_dir("noarch", R"([general]
name = "noarch-toy"
version = 1
edition = 5
license = "apache-2.0"
backends = ["cuda", "rocm", "neuron"]

[general.neuron]
python-depends = ["nki"]

[torch-noarch]
pyext = ["py", "json"]
cuda_capabilities = ["9.0", "8.0"]
rocm_archs = ["gfx942"]
)",
                                  {"torch-ext/noarch_toy/__init__.py"});
  const BuildConfigFacts config = read_build_config(dir);
  ASSERT_TRUE(config.usable()) << problems_of(config);
  const KernelSource kernel = kernel_source_from_config(config);
  EXPECT_TRUE(kernel.noarch);
  EXPECT_EQ(kernel.noarch_cuda_capabilities, (Strings{"9.0", "8.0"})) << "as listed, not sorted";
  EXPECT_EQ(kernel.noarch_rocm_archs, (Strings{"gfx942"}));
  EXPECT_EQ(kernel.backend_python_depends.at("neuron"), (Strings{"nki"}));
  EXPECT_TRUE(kernel.components.empty());
}

TEST(KernelSourceFromConfig, AMissingBuildTomlIsRefusedNamingTheDirectory) {
  const fs::path dir = kernel_dir("missing", "");
  const std::string why = refusal(dir);
  EXPECT_EQ(why, "no build.toml in " + dir.string());
}

TEST(KernelSourceFromConfig, ABuildTomlWithErrorsIsRefusedPointingAtKcheckConfig) {
  const fs::path dir = kernel_dir("errors", "[general]\nname = \"toy\"\nversion = \"one\"\n");
  const std::string why = refusal(dir);
  EXPECT_NE(why.find("build.toml has errors"), std::string::npos) << why;
  EXPECT_NE(why.find("kcheck config " + dir.string()), std::string::npos) << why;
  const std::string syntax = refusal(kernel_dir("not-toml", "[general\n"));
  EXPECT_NE(syntax.find("build.toml has errors"), std::string::npos) << "a TOML syntax error too: " << syntax;
}

TEST(KernelSourceFromConfig, ATvmFfiKernelIsRefusedNamingItsFramework) {
  const fs::path dir = kernel_dir("tvm-ffi", R"([general]
name = "toy"
version = 1
edition = 5
license = "apache-2.0"
backends = ["cuda"]

[tvm-ffi]
src = ["tvm-ffi-ext/binding.cpp"]

[kernel.toy_cuda]
backend = "cuda"
depends = []
src = ["toy_cuda/toy.cu"]
)",
                                  {"tvm-ffi-ext/binding.cpp", "tvm-ffi-ext/toy/__init__.py", "toy_cuda/toy.cu"});
  const BuildConfigFacts config = read_build_config(dir);
  ASSERT_TRUE(config.usable()) << problems_of(config);
  const std::string why = refusal(dir);
  EXPECT_NE(why.find("this one is [tvm-ffi]"), std::string::npos) << why;
  EXPECT_NE(why.find("TVM-FFI toolchain"), std::string::npos) << why;
}

}  // namespace
}  // namespace kcheck
