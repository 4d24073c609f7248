#include "checker/core/policy.h"
#include "checker/metadata/ascii_text.h"
#include "checker/metadata/rules/metadata_rule_table.h"
#include "checker/metadata/rules/metadata_rule_support.h"

namespace kcheck {
namespace {

class LicenseAccepted final : public PerVariantMetadataRule {
 public:
  const RuleInfo& info() const override { return info_; }

 protected:
  void check_variant(const VariantFacts& variant, const RuleContext& context, FindingSink& sink) const override {
    const auto& license = variant.metadata.license;
    if (!license || license->empty()) return;  // KM002
    const std::set<std::string>& accepted = context.policy.accepted_licenses;
    if (accepted.contains(ascii_lowercase(*license))) return;
    sink.report(metadata_place(variant, "/license"),
                "license '" + *license + "' is not a license id the Hub accepts (policy " + context.policy.name +
                    " lists " + std::to_string(accepted.size()) +
                    ", e.g. apache-2.0, mit, bsd-3-clause; compared case-insensitively)");
  }

 private:
  RuleInfo info_{"KM009",
                 "license is not a license id the Hub accepts",
                 Severity::warning,
                 R"(`license` should be one of the license identifiers the Hub accepts (its
lowercase SPDX-style ids such as `apache-2.0`, `mit`, `bsd-3-clause`, or
`other`); the policy's `[licenses] accepted` list holds them. The comparison
is case-insensitive, so `Apache-2.0` is accepted. An unknown id means the
kernel page cannot show the license and users cannot tell whether they may
use the kernel.

Fix: set `general.license` in build.toml to the Hub id of your license (or
`other` and add a LICENSE file) and rebuild.
)",
                 R"ex("license": "Apache License 2.0")ex",
                 R"ex("license": "apache-2.0")ex"};
};

}  // namespace

std::unique_ptr<Rule> make_km009_license_accepted() { return std::make_unique<LicenseAccepted>(); }

}  // namespace kcheck
