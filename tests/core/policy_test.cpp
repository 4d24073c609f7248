#include <gtest/gtest.h>

#include <algorithm>

#include "checker/core/policy.h"

namespace kcheck {
namespace {

TEST(Policy, HubHasTheManylinux228CeilingsAndDynamicCxx) {
  Policy hub = load_policy("hub");
  EXPECT_EQ(hub.name, "hub");
  const auto& x86 = hub.native.symbol_ceilings.at("x86_64");
  EXPECT_EQ(x86.at("GLIBC"), *Version::parse("2.28"));
  EXPECT_EQ(x86.at("GLIBCXX"), *Version::parse("3.4.24"));
  EXPECT_EQ(x86.at("CXXABI"), *Version::parse("1.3.11"));
  EXPECT_EQ(x86.at("GCC"), *Version::parse("7.0.0"));
  EXPECT_EQ(hub.native.cxx_runtime, CxxRuntimePolicy::dynamic_within_ceilings);
  EXPECT_TRUE(hub.native.system_libraries.contains("libstdc++.so.6"));
  EXPECT_TRUE(hub.native.allowed_named_versions.contains("CXXABI_TM_1"));
  EXPECT_EQ(hub.package_layout, PackageLayout::top_level);
}

TEST(Policy, HubLegacyIsTheSeedsGlibc227AndStaticCxx) {
  Policy legacy = load_policy("hub-legacy");
  EXPECT_EQ(legacy.native.symbol_ceilings.at("x86_64").at("GLIBC"), *Version::parse("2.27"));
  EXPECT_EQ(legacy.native.cxx_runtime, CxxRuntimePolicy::static_only);
  EXPECT_EQ(legacy.package_layout, PackageLayout::nested);
  ASSERT_EQ(legacy.required_variants.size(), 1u);
  EXPECT_EQ(legacy.required_variants[0].variants.size(), 12u);  // seed 004's list
}

TEST(Policy, CarriesPythonAndTorchData) {
  Policy hub = load_policy("hub");
  EXPECT_EQ(hub.python.floor, *Version::parse("3.9"));
  EXPECT_EQ(hub.python.stable_abi_symbols.at("PyType_FromSpec"), *Version::parse("3.2"));
  EXPECT_EQ(hub.python.stable_abi_symbols.at("PyType_FromModuleAndSpec"), *Version::parse("3.10"));
  EXPECT_TRUE(hub.python.stdlib_modules.contains("os"));
  EXPECT_FALSE(hub.python.stdlib_modules.contains("numpy"));
  EXPECT_EQ(hub.torch_shim_versions.at("aoti_torch_aten_full"), *Version::parse("2.10.0"));
  auto cutlass =
      std::find_if(hub.python.backend_dependencies.at("cuda").begin(), hub.python.backend_dependencies.at("cuda").end(),
                   [](const auto& dependency) { return dependency.name == "nvidia-cutlass-dsl"; });
  ASSERT_NE(cutlass, hub.python.backend_dependencies.at("cuda").end());
  EXPECT_EQ(cutlass->import_names, std::vector<std::string>{"cutlass"});
  EXPECT_TRUE(hub.accepted_licenses.contains("apache-2.0"));
}

TEST(Policy, RequiredVariantsFollowTheCurrentList) {
  Policy hub = load_policy("hub");
  auto cuda = std::find_if(hub.required_variants.begin(), hub.required_variants.end(),
                           [](const auto& set) { return set.system == "x86_64-linux" && set.backend == "cuda"; });
  ASSERT_NE(cuda, hub.required_variants.end());
  EXPECT_EQ(cuda->variants.size(), 6u);
  EXPECT_NE(std::find(cuda->variants.begin(), cuda->variants.end(), "torch213-cxx11-cu130-x86_64-linux"),
            cuda->variants.end());
}

TEST(Policy, UnknownNameIsAClearError) {
  try {
    load_policy("no-such-policy");
    FAIL() << "expected PolicyError";
  } catch (const PolicyError& error) {
    EXPECT_NE(std::string(error.what()).find("no-such-policy"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("hub"), std::string::npos);  // lists the known ones
  }
}

TEST(Policy, InvalidFileNamesTheKey) {
  const char* text = R"(
[policy]
name = "mine"
[native]
cxx-runtime = "sometimes"
)";
  try {
    parse_policy(text, "mine.toml");
    FAIL() << "expected PolicyError";
  } catch (const PolicyError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("mine.toml"), std::string::npos);
    EXPECT_NE(message.find("native.cxx-runtime"), std::string::npos);
  }
}

TEST(Policy, InvalidTomlGivesLineAndColumn) {
  try {
    parse_policy("[policy\nname = 1", "broken.toml");
    FAIL() << "expected PolicyError";
  } catch (const PolicyError& error) {
    EXPECT_NE(std::string(error.what()).find("line 1"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace kcheck
