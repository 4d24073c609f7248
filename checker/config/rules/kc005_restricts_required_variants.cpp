#include <algorithm>
#include <functional>
#include <set>

#include "checker/config/config_values.h"
#include "checker/config/rules/config_rule_table.h"
#include "checker/config/rules/config_rule_support.h"
#include "checker/core/policy.h"
#include "checker/kinds/variant_name.h"

namespace kcheck {
namespace {

// One variant the policy requires for a declared backend, and the Torch
// versions that can build it: one for a `torchXY` variant; for a stable-ABI
// variant every required Torch with its compute token and system that is at
// least the ABI version (the builder keeps the newest one within the bounds).
struct RequiredBuild {
  std::string variant;
  std::string backend;
  std::vector<Version> torch;
  Version backend_version;  // CUDA 13.0 for cu130
};

// The stable-ABI version a backend builds against (build-toml.md §4.5), if any.
std::optional<Version> stable_abi_version(const FrameworkSection& framework, const std::string& backend) {
  if (framework.stable_abi_all_backends) return framework.stable_abi_all_backends->version;
  auto entry = framework.stable_abi_per_backend.find(backend);
  if (entry == framework.stable_abi_per_backend.end()) return std::nullopt;
  return entry->second.version;
}

// "torch-stable-abi211-cu126-x86_64-linux" (build-variants.md §1.1).
std::string stable_abi_variant(const Version& abi, const VariantName& name) {
  return "torch-stable-abi" + std::to_string(abi.major()) + std::to_string(abi.minor()) + "-" + name.compute + "-" +
         name.system();
}

// The required `torchXY` variants of one (system, backend) set, or for a
// stable-ABI backend their stable-ABI equivalents (build-variants.md §2.4):
// one per compute token, buildable only with a Torch at least the ABI.
void add_required_builds(const RequiredVariantSet& set, const std::optional<Version>& abi,
                         std::vector<RequiredBuild>& builds) {
  const std::size_t first = builds.size();
  for (const std::string& name : set.variants) {
    auto parsed = parse_variant_name(name);
    if (!parsed || parsed->kind != VariantKind::torch) continue;
    if (!abi) {
      builds.push_back({name, parsed->backend, {parsed->framework_version}, parsed->backend_version});
      continue;
    }
    if (parsed->framework_version < *abi) continue;  // this Torch cannot build the stable-ABI variant
    std::string variant = stable_abi_variant(*abi, *parsed);
    auto same = std::find_if(builds.begin() + static_cast<std::ptrdiff_t>(first), builds.end(),
                             [&](const RequiredBuild& b) { return b.variant == variant; });
    if (same == builds.end())
      builds.push_back({variant, parsed->backend, {parsed->framework_version}, parsed->backend_version});
    else
      same->torch.push_back(parsed->framework_version);
  }
}

std::vector<RequiredBuild> required_builds(const Policy& policy, const BuildConfigFacts& config) {
  std::vector<RequiredBuild> builds;
  std::vector<std::string> declared = config.general.backends.values();
  for (const RequiredVariantSet& set : policy.required_variants) {
    if (std::find(declared.begin(), declared.end(), set.backend) == declared.end()) continue;
    add_required_builds(set, stable_abi_version(config.framework, set.backend), builds);
  }
  return builds;
}

std::vector<Version> torch_versions(const RequiredBuild& build) { return build.torch; }
std::vector<Version> backend_versions(const RequiredBuild& build) { return {build.backend_version}; }

// "2.12 (6 required variants, e.g. torch212-cxx11-cu126-x86_64-linux)"
std::string describe(const std::vector<const RequiredBuild*>& excluded,
                     const std::function<std::vector<Version>(const RequiredBuild&)>& versions_of) {
  std::set<Version> versions;
  for (const RequiredBuild* build : excluded)
    for (const Version& version : versions_of(*build)) versions.insert(version);
  std::string list;
  for (const Version& version : versions) list += (list.empty() ? "" : ", ") + version.str();
  return list + " (" + std::to_string(excluded.size()) + " required variant" + (excluded.size() == 1 ? "" : "s") +
         ", e.g. " + excluded.front()->variant + ")";
}

bool within(const std::optional<ConfigVersion>& min, const std::optional<ConfigVersion>& max, const Version& version) {
  return !(min && min->version && version < *min->version) && !(max && max->version && version > *max->version);
}

class RestrictsRequiredVariants final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const BuildConfigFacts* config = judgeable_build_config(context.tree);
    if (!config || config->framework.kind != FrameworkKind::torch) return;  // only [torch] builds per Torch/CUDA
    std::vector<RequiredBuild> builds = required_builds(context.policy, *config);
    if (builds.empty()) return;
    Judge judge{*config, builds, sink, context.policy.name, context.policy.cuda_toolkit_defaults};
    judge.bound(config->framework.minver, "Torch", torch_versions, std::less<>(), "");
    judge.bound(config->framework.maxver, "Torch", torch_versions, std::greater<>(), "");
    if (const BackendSettings* cuda = judge.cuda_settings()) {
      judge.bound(cuda->minver, "CUDA", backend_versions, std::less<>(), "cuda");
      judge.bound(cuda->maxver, "CUDA", backend_versions, std::greater<>(), "cuda");
    }
    // A component's cuda-minver leaves only that component out of older
    // toolkits' builds (the variant is still built), so it removes no
    // variant; it does spare those toolkits the capability intersection.
    for (const KernelComponent& component : config->components) {
      if (!component.backend || component.backend->value != "cuda") continue;
      judge.capabilities(component);
    }
  }

 private:
  struct Judge {
    const BuildConfigFacts& config;
    const std::vector<RequiredBuild>& builds;
    FindingSink& sink;
    const std::string& policy;
    const std::vector<CudaToolkitDefaults>& cuda_toolkit_defaults;

    const BackendSettings* cuda_settings() const {
      auto cuda = config.general.backend_settings.find("cuda");
      return cuda == config.general.backend_settings.end() ? nullptr : &cuda->second;
    }

    // Reports the required builds that `limit` as a bound excludes: those
    // all of whose versions compare `outside` it.
    template <typename Outside>
    void bound(const std::optional<ConfigVersion>& limit, const std::string& what,
               const std::function<std::vector<Version>(const RequiredBuild&)>& versions_of, Outside outside,
               const std::string& backend) {
      if (!limit || !limit->version) return;
      std::vector<const RequiredBuild*> excluded;
      for (const RequiredBuild& build : builds) {
        if (!backend.empty() && build.backend != backend) continue;
        std::vector<Version> versions = versions_of(build);
        if (std::all_of(versions.begin(), versions.end(),
                        [&](const Version& v) { return outside(v, *limit->version); }))
          excluded.push_back(&build);
      }
      if (excluded.empty()) return;
      sink.report(config_place(config, limit->position), "`" + limit->key + "` = \"" + limit->text + "\" excludes " +
                                                             what + " " + describe(excluded, versions_of) +
                                                             " that policy '" + policy + "' requires");
    }

    // Whether the builder attempts `build` with the component: the general
    // bounds keep it, and its toolkit reaches the component's cuda-minver
    // (below it the component is skipped before any intersection).
    bool compiles_component(const RequiredBuild& build, const KernelComponent& component) const {
      if (build.backend != "cuda") return false;
      if (const BackendSettings* cuda = cuda_settings();
          cuda && !within(cuda->minver, cuda->maxver, build.backend_version))
        return false;
      if (std::none_of(build.torch.begin(), build.torch.end(), [&](const Version& torch) {
            return within(config.framework.minver, config.framework.maxver, torch);
          }))
        return false;
      return !(component.cuda_minver && component.cuda_minver->version &&
               build.backend_version < *component.cuda_minver->version);
    }

    void capabilities(const KernelComponent& component) {
      const ConfigStringList& list = component.cuda_capabilities;
      if (!list.present) return;
      std::vector<std::string> listed = list.values();
      std::vector<const RequiredBuild*> excluded;
      for (const RequiredBuild& build : builds)
        if (compiles_component(build, component) &&
            !build_config::capabilities_build_with_toolkit(listed, build.backend_version, cuda_toolkit_defaults))
          excluded.push_back(&build);
      if (excluded.empty()) return;
      sink.report(config_place(config, list.position),
                  "`" + list.key + "` selects nothing the toolkit of CUDA " + describe(excluded, backend_versions) +
                      " compiles, so those builds fail; policy '" + policy + "' requires them");
    }
  };

  RuleInfo info_{"KC005",
                 "build.toml restricts the build below the required variant set",
                 Severity::warning,
                 R"(A compliant kernel ships every variant the policy requires for its backends
(for policy `hub`: Torch 2.12 and 2.13, and for CUDA the 12.6, 13.0 and 13.2
toolkits; a backend built with the Torch stable ABI needs one
torch-stable-abi<ABI>-<compute>-<system> variant per compute token and
system instead). Some build.toml keys remove variants: [torch]
minver/maxver drop Torch versions, [general.cuda] minver/maxver drop CUDA
versions, and a cuda-capabilities list that selects nothing a toolkit
compiles (e.g. only 10.0/12.0 with CUDA 12.6, whose targets end at 9.0)
makes that build fail. A component's own cuda-minver is not a restriction:
older toolkits build the variant without that component (and never
intersect its capabilities). The resulting build tree cannot be complete
(see KL006).

Fix: remove the bound (the docs say these keys should normally not be set)
or widen it to include the required versions; add a capability the older
toolkits compile (e.g. "8.0" or "9.0"), or give the component a
cuda-minver so older toolkits skip it.
)",
                 R"ex(# policy hub
[general.cuda]
minver = "12.8"      # excludes the required CUDA 12.6 variants)ex",
                 R"ex([general.cuda]
# no minver: the builder covers CUDA 12.6, 13.0 and 13.2)ex",
                 0,
                 RuleNeeds::source};
};

}  // namespace

std::unique_ptr<Rule> make_kc005_restricts_required_variants() { return std::make_unique<RestrictsRequiredVariants>(); }

}  // namespace kcheck
