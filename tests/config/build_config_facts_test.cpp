// The facts read from build.toml (what `kcheck build` uses) and the value
// grammars of build-toml.md §5.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "checker/kinds/build_config_facts.h"
#include "checker/config/config_values.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;
namespace bc = build_config;

const fs::path kFixtures = fs::path(KCHECK_SOURCE_DIR) / "tests/fixtures/config";

TEST(BuildConfigFacts, ReadsEveryValueOfACleanEdition5File) {
  BuildConfigFacts facts = read_build_config(kFixtures / "clean_edition5");
  ASSERT_TRUE(facts.present);
  EXPECT_EQ(facts.edition, BuildEdition::edition5);
  EXPECT_TRUE(facts.schema_problems.empty());
  EXPECT_TRUE(facts.usable());
  ASSERT_TRUE(facts.general.name);
  EXPECT_EQ(facts.general.name->value, "relu");
  EXPECT_EQ(facts.general.name->position.line, 2);
  EXPECT_EQ(facts.general.version, 1);
  EXPECT_EQ(facts.general.edition, 5);
  EXPECT_EQ(facts.general.license->value, "apache-2.0");
  EXPECT_EQ(facts.general.backends.values(), std::vector<std::string>{"cuda"});
  EXPECT_EQ(facts.general.python_depends.values(), std::vector<std::string>{"einops"});
  ASSERT_EQ(facts.general.kernel_depends.size(), 1u);
  EXPECT_EQ(facts.general.kernel_depends[0].repo_id, "my-org/helper");
  EXPECT_EQ(facts.general.kernel_depends[0].version, 1);
  EXPECT_EQ(facts.general.hub_repo_id->value, "my-org/relu");
  EXPECT_EQ(facts.general.backend_settings.at("cuda").python_depends.values(),
            std::vector<std::string>{"nvidia-cutlass-dsl"});

  EXPECT_EQ(facts.framework.kind, FrameworkKind::torch);
  EXPECT_EQ(facts.framework.src.values(), std::vector<std::string>{"torch-ext/torch_binding.cpp"});
  ASSERT_TRUE(facts.framework.stable_abi_per_backend.contains("cuda"));
  EXPECT_EQ(facts.framework.stable_abi_per_backend.at("cuda").version, Version({2, 11}));
  EXPECT_FALSE(facts.framework.stable_abi_all_backends);

  ASSERT_EQ(facts.components.size(), 1u);
  const KernelComponent& component = facts.components[0];
  EXPECT_EQ(component.name, "relu_cuda");
  EXPECT_EQ(component.backend->value, "cuda");
  EXPECT_EQ(component.depends.values(), (std::vector<std::string>{"torch", "cutlass_4_0"}));
  EXPECT_EQ(component.include.values(), std::vector<std::string>{"relu_cuda/include"});
  EXPECT_EQ(component.cuda_capabilities.values(), (std::vector<std::string>{"8.0", "9.0a", "10.0f", "12.0+PTX"}));
  EXPECT_EQ(component.cuda_capabilities.items[2].key, "kernel.relu_cuda.cuda-capabilities[2]");
  EXPECT_EQ(component.cuda_capabilities.items[2].position.line, 25);

  EXPECT_EQ(facts.listed_paths.size(), 3u);
  for (const ListedPath& path : facts.listed_paths) EXPECT_EQ(path.status, PathStatus::ok) << path.path.value;
  ASSERT_TRUE(facts.python_package);
  EXPECT_EQ(facts.python_package->directory, "torch-ext/relu");
  EXPECT_TRUE(facts.python_package->init_exists);
  EXPECT_FALSE(facts.python_package->nested_module_exists);
}

// Issue #29: a misspelt key is named with the key it was meant to be.
TEST(BuildConfigFacts, AMisspeltKeyGetsTheNearestAcceptedOne) {
  const fs::path kernel = fs::path(::testing::TempDir()) / "kc002-did-you-mean";
  fs::create_directories(kernel);
  std::ofstream(kernel / "build.toml") << "[general]\nname = \"relu\"\nversion = 1\nlicense = \"mit\"\n"
                                          "backends = [\"cpu\"]\nlicence = \"mit\"\ncolour = 1\n\n"
                                          "[torch]\nsrc = []\n\n[kernel.relu]\nbackend = \"cpu\"\nsrc = []\n"
                                          "depends = []\ncxx_flags = []\n";
  std::map<std::string, std::string> messages;
  for (const ConfigProblem& problem : read_build_config(kernel).schema_problems)
    messages[problem.key] = problem.message;
  ASSERT_TRUE(messages.contains("general.licence"));
  EXPECT_TRUE(messages["general.licence"].starts_with(
      "unknown key `general.licence` in [general]; did you mean `license`? accepted (v4): "))
      << messages["general.licence"];
  EXPECT_EQ(messages["general.colour"].find("did you mean"), std::string::npos) << "nothing is that near";
  EXPECT_NE(messages["kernel.relu.cxx_flags"].find("did you mean `cxx-flags`?"), std::string::npos)
      << messages["kernel.relu.cxx_flags"];
}

TEST(BuildConfigFacts, ClassifiesEditions) {
  struct Case {
    const char* fixture;
    BuildEdition edition;
    bool usable;
  };
  for (const Case& c : {Case{"clean_v4", BuildEdition::v4, true}, Case{"kc002_v3_format", BuildEdition::v3, false},
                        Case{"kc002_pre_v3_format", BuildEdition::pre_v3, false},
                        Case{"kc002_unsupported_edition", BuildEdition::unsupported, false},
                        Case{"kc002_v4_with_edition5_key", BuildEdition::v4, false},
                        Case{"kc002_schema_errors", BuildEdition::edition5, false},
                        Case{"kc001_not_toml", BuildEdition::unknown, false}}) {
    BuildConfigFacts facts = read_build_config(kFixtures / c.fixture);
    EXPECT_EQ(facts.edition, c.edition) << c.fixture << ": " << to_string(facts.edition);
    EXPECT_EQ(facts.usable(), c.usable) << c.fixture;
  }
}

TEST(BuildConfigFacts, ModuleNameReplacesDashes) {
  BuildConfigFacts facts = read_build_config(kFixtures / "kc004_near_miss_dash_name");
  EXPECT_EQ(facts.module_name(), "fused_rope");
  EXPECT_EQ(facts.framework.kind, FrameworkKind::torch_noarch);
  EXPECT_TRUE(facts.components.empty());
}

TEST(BuildConfigFacts, AbsentFileIsNotPresentAndDoesNotThrow) {
  BuildConfigFacts facts = read_build_config(kFixtures / "no-such-kernel");
  EXPECT_FALSE(facts.present);
  EXPECT_FALSE(facts.usable());
}

TEST(ConfigValues, VersionsFollowTheReferenceParser) {
  EXPECT_EQ(bc::parse_config_version("2.12"), Version({2, 12}));
  EXPECT_EQ(bc::parse_config_version(" 2.10.0 "), Version({2, 10}));
  EXPECT_EQ(bc::parse_config_version("13.0"), Version({13}));
  EXPECT_EQ(bc::parse_config_version("+2.012"), Version({2, 12}));
  std::string why;
  EXPECT_FALSE(bc::parse_config_version("  ", &why));
  EXPECT_EQ(why, "empty version string");
  EXPECT_FALSE(bc::parse_config_version("2.x"));
  EXPECT_FALSE(bc::parse_config_version("2..1"));
  EXPECT_TRUE(bc::is_major_minor("2.11"));
  EXPECT_FALSE(bc::is_major_minor("3"));
  EXPECT_FALSE(bc::is_major_minor("2.11.1"));
}

TEST(ConfigValues, KernelNames) {
  for (const char* good : {"relu", "fused-rope2", "a--b", "ab"}) EXPECT_TRUE(bc::is_valid_kernel_name(good)) << good;
  for (const char* bad : {"r", "Relu", "fused_rope", "2relu", "-relu", "relu-", ""})
    EXPECT_FALSE(bc::is_valid_kernel_name(bad)) << bad;
}

TEST(ConfigValues, GitUrls) {
  for (const char* good :
       {"https://github.com/org/repo", "git+ssh://git@host/org/repo.git", "git@github.com:org/repo.git"})
    EXPECT_TRUE(bc::is_valid_git_url(good)) << good;
  std::string why;
  EXPECT_FALSE(bc::is_valid_git_url("github.com:org/repo", &why));  // read as scheme "github.com"
  EXPECT_NE(why.find("unsupported scheme"), std::string::npos) << why;
  for (const char* bad : {"file:///tmp/repo", "ftp://host/repo", "git@host:/abs", "git@host:", "no-colon"})
    EXPECT_FALSE(bc::is_valid_git_url(bad)) << bad;
}

TEST(ConfigValues, CapabilityAndArchGrammars) {
  for (const char* good : {"8.0", "9.0a", "10.0f", "12.0a", "9.0+PTX", "10.0a+PTX"})
    EXPECT_TRUE(bc::is_valid_cuda_capability(good)) << good;
  for (const char* bad : {"sm_80", "8", "8.0b", "9.0+ptx", "8.0.1"})
    EXPECT_FALSE(bc::is_valid_cuda_capability(bad)) << bad;
  EXPECT_EQ(bc::capability_base("9.0a+PTX"), "9.0");
  for (const char* good : {"gfx90a", "gfx942", "gfx1100"}) EXPECT_TRUE(bc::is_valid_rocm_arch(good)) << good;
  for (const char* bad : {"gfx", "GFX942", "gfx942xx", "942"}) EXPECT_FALSE(bc::is_valid_rocm_arch(bad)) << bad;
}

TEST(ConfigValues, CapabilitiesAgainstToolkitTargets) {
  const Version cuda126({12, 6}), cuda128({12, 8}), cuda130({13, 0});
  const std::vector<CudaToolkitDefaults> defaults = load_policy("hub").cuda_toolkit_defaults;
  EXPECT_FALSE(bc::capabilities_build_with_toolkit({"10.0", "12.0"}, cuda126, defaults));  // targets end at 9.0
  EXPECT_TRUE(bc::capabilities_build_with_toolkit({"10.0", "12.0"}, cuda128, defaults));
  EXPECT_TRUE(bc::capabilities_build_with_toolkit({"8.0"}, cuda126, defaults));  // picked for 8.6, 8.9 too
  EXPECT_TRUE(bc::capabilities_build_with_toolkit({"9.0+PTX"}, cuda126, defaults));
  EXPECT_FALSE(bc::capabilities_build_with_toolkit({"10.1a"}, cuda130, defaults));  // 10.1 not a 13.0 target
  EXPECT_TRUE(bc::capabilities_build_with_toolkit({"10.1a"}, cuda128, defaults));
  EXPECT_FALSE(bc::capabilities_build_with_toolkit({"11.8"}, cuda130, defaults));  // no 11.x target >= 11.8
  EXPECT_FALSE(bc::capabilities_build_with_toolkit({}, cuda130, defaults));
}

TEST(ConfigValues, ToolkitTargetsComeFromThePolicy) {
  const std::vector<CudaToolkitDefaults> defaults = load_policy("hub").cuda_toolkit_defaults;
  const std::vector<Version> cuda130 = bc::toolkit_targets(Version({13, 0}), defaults);
  ASSERT_FALSE(cuda130.empty());
  EXPECT_EQ(cuda130.front(), Version({7, 5}));
  EXPECT_EQ(cuda130.back(), Version({12, 1}));  // "12.1+PTX" without the marker
  EXPECT_EQ(bc::toolkit_targets(Version({12, 6}), defaults).back(), Version({9, 0}));
  EXPECT_EQ(bc::toolkit_targets(Version({12, 9}), defaults).back(), Version({12, 0}));
  // A policy whose oldest entry starts at 12.0 gives an 11.8 toolkit no targets.
  const std::vector<CudaToolkitDefaults> newer_only = {{Version({12, 0}), {"9.0+PTX"}}};
  EXPECT_TRUE(bc::toolkit_targets(Version({11, 8}), newer_only).empty());
  EXPECT_FALSE(bc::capabilities_build_with_toolkit({"9.0"}, Version({11, 8}), newer_only));
}

}  // namespace
}  // namespace kcheck
