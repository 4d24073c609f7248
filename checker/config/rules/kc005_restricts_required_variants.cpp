#include <algorithm>
#include <functional>
#include <set>

#include "checker/config/config_values.h"
#include "checker/config/rules/config_rule_factories.h"
#include "checker/config/rules/config_rule_support.h"
#include "checker/core/policy.h"
#include "checker/layout/variant_name.h"

namespace kcheck {
namespace {

// One required Torch build the kernel's backends call for.
struct RequiredBuild {
  std::string variant;
  std::string backend;
  Version torch;
  Version backend_version;  // CUDA 13.0 for cu130
};

std::vector<RequiredBuild> required_builds(const Policy& policy, const ConfigStringList& backends) {
  std::vector<RequiredBuild> builds;
  std::vector<std::string> declared = backends.values();
  for (const RequiredVariantSet& set : policy.required_variants) {
    if (std::find(declared.begin(), declared.end(), set.backend) == declared.end()) continue;
    for (const std::string& name : set.variants)
      if (auto parsed = parse_variant_name(name); parsed && parsed->kind == VariantKind::torch)
        builds.push_back({name, parsed->backend, parsed->framework_version, parsed->backend_version});
  }
  return builds;
}

// "2.12 (6 required variants, e.g. torch212-cxx11-cu126-x86_64-linux)"
std::string describe(const std::vector<const RequiredBuild*>& excluded, Version RequiredBuild::*version) {
  std::set<std::string> versions;
  for (const RequiredBuild* build : excluded) versions.insert((build->*version).str());
  std::string list;
  for (const std::string& text : versions) list += (list.empty() ? "" : ", ") + text;
  return list + " (" + std::to_string(excluded.size()) + " required variant" + (excluded.size() == 1 ? "" : "s") +
         ", e.g. " + excluded.front()->variant + ")";
}

class RestrictsRequiredVariants final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const BuildConfigFacts* config = judgeable_build_config(context.tree);
    if (!config || config->framework.kind != FrameworkKind::torch) return;  // only [torch] builds per Torch/CUDA
    std::vector<RequiredBuild> builds = required_builds(context.policy, config->general.backends);
    if (builds.empty()) return;
    Judge judge{*config, builds, sink, context.policy.name, context.policy.cuda_toolkit_defaults};
    judge.bound(config->framework.minver, "Torch", &RequiredBuild::torch, std::less<>(), "");
    judge.bound(config->framework.maxver, "Torch", &RequiredBuild::torch, std::greater<>(), "");
    if (auto cuda = config->general.backend_settings.find("cuda"); cuda != config->general.backend_settings.end()) {
      judge.bound(cuda->second.minver, "CUDA", &RequiredBuild::backend_version, std::less<>(), "cuda");
      judge.bound(cuda->second.maxver, "CUDA", &RequiredBuild::backend_version, std::greater<>(), "cuda");
    }
    for (const KernelComponent& component : config->components) {
      if (!component.backend || component.backend->value != "cuda") continue;
      judge.bound(component.cuda_minver, "CUDA", &RequiredBuild::backend_version, std::less<>(), "cuda",
                  " (the component is left out of those variants)");
      judge.capabilities(component.cuda_capabilities);
    }
  }

 private:
  struct Judge {
    const BuildConfigFacts& config;
    const std::vector<RequiredBuild>& builds;
    FindingSink& sink;
    const std::string& policy;
    const std::vector<CudaToolkitDefaults>& cuda_toolkit_defaults;

    // Reports the required builds that `version` as a bound excludes:
    // those whose version compares `outside` it.
    template <typename Outside>
    void bound(const std::optional<ConfigVersion>& limit, const std::string& what, Version RequiredBuild::*version,
               Outside outside, const std::string& backend, const std::string& consequence = "") {
      if (!limit || !limit->version) return;
      std::vector<const RequiredBuild*> excluded;
      for (const RequiredBuild& build : builds)
        if ((backend.empty() || build.backend == backend) && outside(build.*version, *limit->version))
          excluded.push_back(&build);
      if (excluded.empty()) return;
      sink.report(config_place(config, limit->position),
                  "`" + limit->key + "` = \"" + limit->text + "\" excludes " + what + " " +
                      describe(excluded, version) + " that policy '" + policy + "' requires" + consequence);
    }

    void capabilities(const ConfigStringList& list) {
      if (!list.present) return;
      std::vector<std::string> listed = list.values();
      std::vector<const RequiredBuild*> excluded;
      for (const RequiredBuild& build : builds)
        if (build.backend == "cuda" && !build_config::capabilities_build_with_toolkit(listed, build.backend_version,
                                                                                     cuda_toolkit_defaults))
          excluded.push_back(&build);
      if (excluded.empty()) return;
      sink.report(config_place(config, list.position),
                  "`" + list.key + "` selects nothing the toolkit of CUDA " +
                      describe(excluded, &RequiredBuild::backend_version) +
                      " compiles, so those builds fail; policy '" + policy + "' requires them");
    }
  };

  RuleInfo info_{"KC005", "build.toml restricts the build below the required variant set", Severity::warning,
                 R"(A compliant kernel ships every variant the policy requires for its backends
(for policy `hub`: Torch 2.12 and 2.13, and for CUDA the 12.6, 13.0 and 13.2
toolkits). Some build.toml keys remove variants: [torch] minver/maxver drop
Torch versions, [general.cuda] minver/maxver drop CUDA versions, a
component's cuda-minver leaves the component out of older CUDA builds, and
a cuda-capabilities list that selects nothing a toolkit compiles (e.g.
only 10.0/12.0 with CUDA 12.6, whose targets end at 9.0) makes that build
fail. The resulting build tree cannot be complete (see KL006).

Fix: remove the bound (the docs say these keys should normally not be set)
or widen it to include the required versions; add a capability the older
toolkits compile (e.g. "8.0" or "9.0").
)",
      R"ex(# policy hub
[general.cuda]
minver = "12.8"      # excludes the required CUDA 12.6 variants)ex",
      R"ex([general.cuda]
# no minver: the builder covers CUDA 12.6, 13.0 and 13.2)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_kc005_restricts_required_variants() {
  return std::make_unique<RestrictsRequiredVariants>();
}

}  // namespace kcheck
