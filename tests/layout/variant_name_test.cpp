#include <gtest/gtest.h>

#include "checker/kinds/variant_name.h"

namespace kcheck {
namespace {

TEST(VariantName, ParsesCompiledTorchNames) {
  auto name = parse_variant_name("torch213-cxx11-cu130-x86_64-linux");
  ASSERT_TRUE(name);
  EXPECT_EQ(name->kind, VariantKind::torch);
  EXPECT_EQ(name->framework_version, *Version::parse("2.13"));
  EXPECT_EQ(name->cxx_tag, "cxx11");
  EXPECT_EQ(name->backend, "cuda");
  EXPECT_EQ(name->backend_version, *Version::parse("13.0"));
  EXPECT_EQ(name->system(), "x86_64-linux");
}

TEST(VariantName, DecodesEveryComputeToken) {
  EXPECT_EQ(parse_variant_name("torch29-cpu-aarch64-darwin")->backend, "cpu");
  EXPECT_EQ(parse_variant_name("torch212-cxx11-rocm71-x86_64-linux")->backend_version, *Version::parse("7.1"));
  EXPECT_EQ(parse_variant_name("torch212-cxx11-xpu20253-x86_64-linux")->backend_version, *Version::parse("2025.3"));
  EXPECT_EQ(parse_variant_name("torch212-metal-aarch64-darwin")->backend, "metal");
  EXPECT_EQ(parse_variant_name("torch210-cann82-aarch64-linux")->backend, "cann");
  auto stable = parse_variant_name("torch-stable-abi211-cu126-aarch64-linux");
  ASSERT_TRUE(stable);
  EXPECT_EQ(stable->kind, VariantKind::torch_stable_abi);
  EXPECT_EQ(stable->framework_version, *Version::parse("2.11"));
  auto tvm = parse_variant_name("tvm-ffi01-cu132-x86_64-linux");
  ASSERT_TRUE(tvm);
  EXPECT_EQ(tvm->kind, VariantKind::tvm_ffi);
  EXPECT_EQ(tvm->framework_version, *Version::parse("0.1"));
}

TEST(VariantName, PythonOnlyNames) {
  EXPECT_EQ(parse_variant_name("torch-cuda")->kind, VariantKind::python_only);
  EXPECT_EQ(parse_variant_name("torch-npu")->backend, "cann");
  EXPECT_EQ(parse_variant_name("torch-universal")->backend, "universal");
  EXPECT_FALSE(parse_variant_name("torch-cann"));  // the loader looks for torch-npu
}

TEST(VariantName, RejectsWithAReason) {
  std::string why;
  for (const char* bad : {"torch2.13-cu130-x86_64-linux", "torch213-cu1-x86_64-linux", "torch213-cu130-x86-linux",
                          "torch213-cxx17-cpu-x86_64-linux", "torch213-cpu-x86_64-linux-extra",
                          "torch-stable-abi211-cxx11-cu126-x86_64-linux", "cuda", ""}) {
    why.clear();
    EXPECT_FALSE(parse_variant_name(bad, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
  EXPECT_FALSE(parse_variant_name("torch213-cxx11-metal-aarch64-darwin", &why));
  EXPECT_NE(why.find("darwin"), std::string::npos);
}

TEST(VariantName, UntaggedLinuxNamesAreValid) { EXPECT_TRUE(parse_variant_name("torch213-cu130-x86_64-linux")); }

}  // namespace
}  // namespace kcheck

namespace kcheck {
namespace {

// Found by fuzz_variant_name: a version component past 2^32 made the parser
// dereference an empty optional (memory corruption); now a reason.
TEST(VariantName, VersionNumbersTooLargeAreRejectedWithAReason) {
  for (const char* bad : {"torch999999999999999211-cu130-x86_64-linux", "torch213-cu99999999999999999990-x86_64-linux",
                          "tvm-ffi099999999999999999999-cpu-x86_64-linux"}) {
    std::string why;
    EXPECT_FALSE(parse_variant_name(bad, &why)) << bad;
    EXPECT_NE(why.find("too large"), std::string::npos) << bad << ": " << why;
  }
}

}  // namespace
}  // namespace kcheck
