// Severity names (checker/core/severity.h) and the files compiled into the
// executable (checker/support/embedded_files.h): what reports and --policy rest on.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "checker/support/embedded_files.h"
#include "checker/core/policy.h"
#include "checker/core/severity.h"

namespace kcheck {
namespace {

TEST(Severity, NamesRoundTripAndOrderByWeight) {
  for (Severity severity : {Severity::note, Severity::warning, Severity::error})
    EXPECT_EQ(parse_severity(to_string(severity)), severity) << to_string(severity);
  EXPECT_EQ(to_string(Severity::error), "error");
  EXPECT_LT(Severity::note, Severity::warning);
  EXPECT_LT(Severity::warning, Severity::error);
  for (const char* bad : {"", "Error", "fatal", "info", "error "}) EXPECT_EQ(parse_severity(bad), std::nullopt) << bad;
}

TEST(EmbeddedFiles, HoldThePoliciesTheirDataAndTheReportTemplates) {
  std::set<std::string> paths;
  for (const EmbeddedFile& file : embedded_files()) {
    EXPECT_FALSE(file.content.empty()) << file.path;
    EXPECT_TRUE(paths.insert(std::string(file.path)).second) << "embedded twice: " << file.path;
  }
  for (const char* wanted :
       {"rules/policies/hub.toml", "rules/policies/hub-legacy.toml", "rules/policies/data/python-stable-abi.json",
        "rules/policies/data/torch-stable-abi-shims.json", "rules/policies/data/python-stdlib-modules.json"})
    EXPECT_TRUE(paths.contains(wanted)) << wanted;
  for (const std::string& path : paths)
    EXPECT_TRUE(path.starts_with("rules/policies/") || path.starts_with("reports/templates/") ||
                path.starts_with("reference/ops/") || path.starts_with("checker/harness/"))
        << "embedded from an unexpected place: " << path;
  ASSERT_TRUE(find_embedded_file("rules/policies/hub.toml").has_value());
  EXPECT_NE(find_embedded_file("rules/policies/hub.toml")->find("[native"), std::string_view::npos);
  EXPECT_EQ(find_embedded_file("rules/hub.toml"), std::nullopt) << "the policies moved to rules/policies/";
  EXPECT_EQ(find_embedded_file(""), std::nullopt);
}

TEST(EmbeddedFiles, EveryEmbeddedPolicyLoadsByName) {
  const std::vector<std::string> names = embedded_policy_names();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), (std::set<std::string>{"hub", "hub-legacy"}));
  for (const std::string& name : names) {
    Policy policy = load_policy(name);
    EXPECT_EQ(policy.name, name);
    EXPECT_EQ(policy.source, "embedded:rules/policies/" + name + ".toml");
    EXPECT_FALSE(policy.python.stable_abi_symbols.empty()) << name << ": its data files were not found";
  }
}

}  // namespace
}  // namespace kcheck
