// KO001–KO004 and the kernel identity helpers on hand-built facts, and KO001
// on native modules compiled with real TORCH_LIBRARY registrations.
#include <gtest/gtest.h>

#include <filesystem>

#include "checker/facts/kernel_identity.h"
#include "checker/namespace/rules/namespace_rule_table.h"
#include "tests/python/rule_test_support.h"

namespace kcheck {
namespace {

using testing::hub_policy;
using testing::make_tree;
using testing::make_variant;
using testing::run_rule;

constexpr const char* kOpsPy =
    "import torch\nfrom . import _relu_cpu_0a1b2c3\nops = torch.ops._relu_cpu_0a1b2c3\n\n\n"
    "def add_op_namespace_prefix(op_name: str):\n    return f\"_relu_cpu_0a1b2c3::{op_name}\"\n";

NativeModuleFacts native_module(std::vector<std::string> registered, std::string file = "_relu_cpu_0a1b2c3.abi3.so") {
  NativeModuleFacts native;
  native.relative_path = std::move(file);
  native.elf = ElfFacts{};
  native.elf->exports.push_back({.name = "PyInit__relu_cpu_0a1b2c3"});
  native.elf->torch_library_namespaces = std::move(registered);
  return native;
}

Findings check(std::unique_ptr<Rule> rule, VariantFacts variant) {
  return run_rule(*rule, make_tree(std::move(variant)), hub_policy());
}

TEST(KernelIdentity, SplitsIdsWithAndWithoutTheModuleName) {
  auto parts = split_kernel_id("_my_cuda_kernel_cuda_3f9a1c2_dirty");
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->module, "my_cuda_kernel");
  EXPECT_EQ(parts->backend, "cuda");
  EXPECT_EQ(parts->unique, "3f9a1c2_dirty");
  parts = split_kernel_id("_relu_cpu_v1", "relu");
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->unique, "v1");
  EXPECT_FALSE(split_kernel_id("_relu_cpu_0a1b2c3", "gelu"));
  EXPECT_FALSE(split_kernel_id("relu_ops"));
}

TEST(KernelIdentity, ModuleNameFromMetadataElseFromIdOrFileName) {
  VariantFacts variant = make_variant({});
  variant.metadata.name = "my-kernel";
  EXPECT_EQ(kernel_module_name(variant), "my_kernel");
  variant.metadata.name.reset();
  EXPECT_EQ(kernel_module_name(variant), "relu");
  variant.metadata.id.reset();
  variant.native_modules.push_back(native_module({}, "_layer_norm_rocm_0a1b2c3.abi3.so"));
  EXPECT_EQ(kernel_module_name(variant), "layer_norm");
  EXPECT_EQ(native_module_stem("_layer_norm_rocm_0a1b2c3.abi3.so"), "_layer_norm_rocm_0a1b2c3");
}

TEST(KO001, FixedRegistrationNameFiresNamingEachSource) {
  VariantFacts variant = make_variant({{"_ops.py", kOpsPy}});
  variant.native_modules.push_back(native_module({"relu_ops"}));
  const Findings findings = check(make_ko001_registered_namespace_mismatch(), std::move(variant));
  ASSERT_EQ(findings.size(), 1u);
  const std::string& message = findings[0].message;
  EXPECT_NE(message.find("`relu_ops`"), std::string::npos);
  EXPECT_NE(message.find("metadata.json id is `_relu_cpu_0a1b2c3`"), std::string::npos);
  EXPECT_NE(message.find("_ops.py"), std::string::npos);
  EXPECT_NE(message.find("PyInit__relu_cpu_0a1b2c3"), std::string::npos);
}

TEST(KO001, RegistrationUnderTheIdPasses) {
  VariantFacts variant = make_variant({{"_ops.py", kOpsPy}});
  variant.native_modules.push_back(native_module({"_relu_cpu_0a1b2c3"}));
  EXPECT_TRUE(check(make_ko001_registered_namespace_mismatch(), std::move(variant)).empty());
}

std::filesystem::path compiled_fixture(const std::string& name) {
  return std::filesystem::path(KCHECK_NAMESPACE_FIXTURES_DIR) / (name + ".so");
}

TEST(KO001, RealTorchLibraryModules) {
  if (std::string(KCHECK_NAMESPACE_FIXTURES_DIR).empty()) GTEST_SKIP() << "Torch headers not installed in .venv";
  for (const auto& [fixture, expected_findings] :
       {std::pair{"registers_under_id", 0u}, std::pair{"registers_fixed_name", 1u}}) {
    VariantFacts variant = make_variant({{"_ops.py", kOpsPy}});
    NativeModuleFacts native;
    native.relative_path = "_relu_cpu_0a1b2c3.abi3.so";
    native.elf = read_elf_facts(compiled_fixture(fixture));
    ASSERT_TRUE(native.elf->error.empty()) << native.elf->error;
    ASSERT_FALSE(native.elf->torch_library_namespaces.empty()) << fixture << ": no registration found in the binary";
    variant.native_modules.push_back(std::move(native));
    const Findings findings = check(make_ko001_registered_namespace_mismatch(), std::move(variant));
    EXPECT_EQ(findings.size(), expected_findings) << fixture;
    if (expected_findings > 0 && !findings.empty()) {
      EXPECT_NE(findings[0].message.find("`relu_ops`"), std::string::npos);
    }
  }
}

TEST(KO002, VersionTagAndMissingUniquePartFire) {
  for (const char* id : {"_relu_cpu_v1", "_relu_cpu_1_2_0", "_relu_cpu_main", "_relu_cpu"}) {
    VariantFacts variant = make_variant({});
    variant.metadata.id = id;
    const Findings findings = check(make_ko002_namespace_without_unique_part(), std::move(variant));
    ASSERT_EQ(findings.size(), 1u) << id;
    EXPECT_NE(findings[0].message.find(id), std::string::npos);
    EXPECT_EQ(findings[0].location.json_pointer, "/id");
  }
}

TEST(KO002, HashDirtyHashAndRandomPass) {
  for (const char* id : {"_relu_cpu_0a1b2c3", "_relu_cpu_5be01d4_dirty", "_relu_cpu_mfrggzdfmztwq"}) {
    VariantFacts variant = make_variant({});
    variant.metadata.id = id;
    EXPECT_TRUE(check(make_ko002_namespace_without_unique_part(), std::move(variant)).empty()) << id;
  }
}

TEST(KO003, LiteralNamespaceFires) {
  const Findings findings =
      check(make_ko003_literal_op_namespace(),
            make_variant({{"layers.py",
                           "import torch\nfrom torch.library import custom_op\n"
                           "@torch.library.register_fake(\"_relu_cpu_0a1b2c3::relu\")\ndef _(x): pass\n"
                           "@custom_op('relu::gelu', mutates_args=())\ndef gelu(x): pass\n"
                           "lib = torch.library.Library('relu', 'FRAGMENT')\n"}}));
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0].location.line, 3);
  EXPECT_NE(findings[0].message.find("add_op_namespace_prefix(\"relu\")"), std::string::npos);
  EXPECT_NE(findings[1].message.find("relu::gelu"), std::string::npos);
}

TEST(KO003, AddOpNamespacePrefixPasses) {
  EXPECT_TRUE(
      check(make_ko003_literal_op_namespace(),
            make_variant({{"layers.py",
                           "import torch\nfrom ._ops import add_op_namespace_prefix\n"
                           "@torch.library.register_fake(add_op_namespace_prefix(\"x\"))\ndef _(x): pass\n"
                           "lib.define('relu(Tensor x) -> Tensor')\nregister_fake(add_op_namespace_prefix('y'))\n"}}))
          .empty());
}

TEST(KO004, LiteralOwnNamespaceOutsideOpsPyFires) {
  const Findings findings =
      check(make_ko004_literal_torch_ops_namespace(),
            make_variant({{"_ops.py", kOpsPy},
                          {"__init__.py",
                           "import torch\ndef relu(x):\n    return torch.ops._relu_cpu_0a1b2c3.relu(x)\n"
                           "def old(x):\n    return torch.ops._relu_cpu_9f8e7d6.relu(x)\n"}}));
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].file, "build/torch212-cxx11-cpu-x86_64-linux/__init__.py");
  EXPECT_EQ(findings[0].location.line, 3);
  EXPECT_NE(findings[0].message.find("ops.relu"), std::string::npos);
}

TEST(KO004, OpsObjectAndForeignNamespacesPass) {
  EXPECT_TRUE(check(make_ko004_literal_torch_ops_namespace(),
                    make_variant({{"_ops.py", kOpsPy},
                                  {"__init__.py",
                                   "import torch\nfrom ._ops import ops\n"
                                   "def relu(x):\n    ops.relu(x)\n    return torch.ops.aten.relu(x)\n"}}))
                  .empty());
}

}  // namespace
}  // namespace kcheck
