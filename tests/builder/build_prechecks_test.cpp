// The upstream builder's refusals that `kcheck build` reproduces as build
// errors: B8 (Torch older than the stable-ABI version) and B9 (op
// registration decorators without add_op_namespace_prefix).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "checker/builder/build_prechecks.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

TorchInstallation torch_at(Version version) { return TorchInstallation{"/torch", std::move(version), "", true}; }

TEST(StableAbiPrecheck, TorchOlderThanTheStableAbiVersionIsRefused) {
  KernelSource kernel;
  kernel.stable_abi["cuda"] = Version({2, 12});
  const std::string problem = stable_abi_problem(kernel, "cuda", torch_at(Version({2, 11, 0})));
  EXPECT_NE(problem.find("Torch 2.11 is older than the stable-ABI version 2.12"), std::string::npos) << problem;
}

TEST(StableAbiPrecheck, SameOrNewerTorchAndOtherBackendsPass) {
  KernelSource kernel;
  kernel.stable_abi["cuda"] = Version({2, 11});
  EXPECT_EQ(stable_abi_problem(kernel, "cuda", torch_at(Version({2, 11, 1}))), "");
  EXPECT_EQ(stable_abi_problem(kernel, "cuda", torch_at(Version({2, 12}))), "");
  EXPECT_EQ(stable_abi_problem(kernel, "rocm", torch_at(Version({2, 10}))), "");  // rocm builds normally
}

fs::path package_with(const std::string& name, const std::string& init_py) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("kcheck_ops_check_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir / "sub");
  std::ofstream(dir / "__init__.py") << init_py;
  return dir;
}

TEST(OpRegistrationPrecheck, FlagsTopLevelDecoratorsWithoutThePrefix) {
  const fs::path dir = package_with("bad", R"(import torch
from torch.library import register_fake
from ._ops import add_op_namespace_prefix

NAME = "mylib::scale"


@torch.library.custom_op("mylib::scale", mutates_args=())
def scale(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@register_fake(NAME)
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op(add_op_namespace_prefix("shift"), mutates_args=())
def shift(x: torch.Tensor) -> torch.Tensor:
    return x + 1


@torch.library.register_kernel(mutates_args=())
def keyword_only(x):
    return x


def inner():
    @torch.library.custom_op("mylib::nested", mutates_args=())
    def nested(x):
        return x
)");
  std::ofstream(dir / "sub/more.py")
      << "import torch\n\n@torch.library.triton_op('lib::t', mutates_args=())\ndef t(x):\n    return x\n";
  std::vector<UnprefixedOpRegistration> found = unprefixed_op_registrations(dir);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].file, "__init__.py");
  EXPECT_EQ(found[0].line, 8);
  EXPECT_EQ(found[0].decorator, "torch.library.custom_op");
  EXPECT_EQ(found[1].line, 13);
  EXPECT_EQ(found[1].decorator, "register_fake");
  EXPECT_EQ(found[2].file, "sub/more.py");
  EXPECT_EQ(found[2].decorator, "torch.library.triton_op");
}

TEST(OpRegistrationPrecheck, ThePrefixedFormPasses) {
  const fs::path dir = package_with("good", R"(import torch
from . import _ops


@torch.library.custom_op(_ops.add_op_namespace_prefix("scale"), mutates_args=())
def scale(x: torch.Tensor) -> torch.Tensor:
    return x * 2
)");
  EXPECT_TRUE(unprefixed_op_registrations(dir).empty());
}

}  // namespace
}  // namespace kcheck
