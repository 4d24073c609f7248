#include <algorithm>
#include <functional>

#include "checker/config/config_values.h"
#include "checker/config/rules/config_rule_table.h"
#include "checker/config/rules/config_rule_support.h"
#include "checker/core/policy.h"

namespace kcheck {
namespace {

using DependencyList = std::vector<AllowedPythonDependency>;

bool allows(const DependencyList& allowed, const std::string& name) {
  return std::any_of(allowed.begin(), allowed.end(), [&](const auto& d) { return d.name == name; });
}

std::string names_of(const DependencyList& allowed) {
  std::string names;
  for (const AllowedPythonDependency& dependency : allowed) names += (names.empty() ? "" : ", ") + dependency.name;
  return names.empty() ? "none" : names;
}

class SchemaViolation final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const BuildConfigFacts* config = readable_build_config(context.tree);
    if (!config) return;
    for (const ConfigProblem& problem : config->schema_problems)
      sink.report(problem.severity, config_place(*config, problem.position), problem.message);
    if (!judgeable_build_config(context.tree)) return;
    check_python_depends(*config, context.policy.python, sink);
    check_license(*config, context.policy, sink);
    for (const KernelComponent& component : config->components) {
      check_supported(*config, component.cuda_capabilities, context.policy.cuda_supported_capabilities,
                      build_config::is_valid_cuda_capability, build_config::capability_base, sink);
      check_supported(
          *config, component.rocm_archs, context.policy.rocm_supported_archs, build_config::is_valid_rocm_arch,
          [](std::string_view arch) { return std::string(arch); }, sink);
    }
  }

 private:
  // B1–B3: every python-depends entry must be in the list for where it is declared.
  static void check_python_depends(const BuildConfigFacts& config, const PythonPolicy& python, FindingSink& sink) {
    for (const ConfigString& entry : config.general.python_depends.items) {
      if (allows(python.general_dependencies, entry.value)) continue;
      std::string home;
      for (const auto& [backend, allowed] : python.backend_dependencies)
        if (allows(allowed, entry.value)) home = backend;
      sink.report(config_place(config, entry.position),
                  home.empty()
                      ? "\"" + entry.value + "\" in `" + entry.key +
                            "` is not an allowed Python dependency; "
                            "allowed in general.python-depends: " +
                            names_of(python.general_dependencies)
                      : "\"" + entry.value + "\" in `" + entry.key + "` is a " + home +
                            " dependency, not a general one: declare it in [general." + home + "] python-depends");
    }
    for (const auto& [backend, settings] : config.general.backend_settings) {
      auto allowed = python.backend_dependencies.find(backend);
      for (const ConfigString& entry : settings.python_depends.items) {
        if (allowed == python.backend_dependencies.end())
          sink.report(config_place(config, entry.position),
                      "no Python dependencies are defined for backend " + backend + ": remove \"" + entry.value +
                          "\" from `" + settings.python_depends.key + "` (metadata generation fails on it)");
        else if (!allows(allowed->second, entry.value))
          sink.report(config_place(config, entry.position), "\"" + entry.value + "\" in `" + entry.key +
                                                                "` is not an allowed Python dependency for backend " +
                                                                backend + "; allowed: " + names_of(allowed->second));
      }
    }
  }

  static void check_license(const BuildConfigFacts& config, const Policy& policy, FindingSink& sink) {
    const std::optional<ConfigString>& license = config.general.license;
    if (!license || policy.accepted_licenses.empty() || license->value.empty()) return;
    std::string lowercase = license->value;
    std::transform(lowercase.begin(), lowercase.end(), lowercase.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (!policy.accepted_licenses.contains(lowercase))
      sink.report(
          Severity::warning, config_place(config, license->position),
          "license \"" + license->value + "\" is not a Hub license id (e.g. apache-2.0, mit, bsd-3-clause, other)");
  }

  // B6 and §7.3: entries outside the supported list are dropped by the
  // builder (warning); a list with no supported entry aborts it (error).
  static void check_supported(const BuildConfigFacts& config, const ConfigStringList& list,
                              const std::vector<std::string>& supported, bool (*well_formed)(std::string_view),
                              const std::function<std::string(std::string_view)>& base, FindingSink& sink) {
    if (!list.present || supported.empty()) return;
    bool any_supported = false;
    for (const ConfigString& entry : list.items) {
      if (!well_formed(entry.value)) continue;  // malformed: reported by the schema checks
      if (std::find(supported.begin(), supported.end(), base(entry.value)) != supported.end()) {
        any_supported = true;
        continue;
      }
      sink.report(Severity::warning, config_place(config, entry.position),
                  "\"" + entry.value + "\" in `" + entry.key +
                      "` is not supported by the builder and is dropped; "
                      "supported: " +
                      join(supported));
    }
    if (!any_supported)
      sink.report(config_place(config, list.position),
                  "`" + list.key +
                      "` has no supported entry: the builder's intersection is empty and the build "
                      "aborts; supported: " +
                      join(supported));
  }

  static std::string join(const std::vector<std::string>& values) {
    std::string joined;
    for (const std::string& value : values) joined += (joined.empty() ? "" : ", ") + value;
    return joined;
  }

  RuleInfo info_{"KC002",
                 "build.toml does not follow the build.toml schema",
                 Severity::error,
                 R"(build.toml must follow the schema kernel-builder reads (build-toml.md).
KC002 reports, with the key and its line:
- the edition: edition 5 is current; a file without `edition` that matches
  the v4 schema is a warning (legacy, auto-upgraded: run
  `kernel-builder update-build`); v3 is an error (run update-build), a file
  without `general.backends` is pre-v3 (regenerate it); another `edition`
  number is unsupported;
- unknown sections or keys (a key of a newer edition than the file's is a
  warning, with an error saying to add `edition = 5`), wrong types (a float
  where a version string is needed), missing required keys, more than one
  framework section ([torch], [torch-noarch], [tvm-ffi]) or none;
- values outside their vocabulary: backends, component backends (only cpu,
  cuda, metal, rocm, xpu), C++ `depends`, kernel names, versions, Git URLs,
  `kernel-depends` entries, `stable-abi` keys; the kebab spellings
  `cuda-capabilities`/`rocm-archs` in [torch-noarch] (it takes
  `cuda_capabilities`/`rocm_archs`);
- what the builder rejects later: python-depends not in the allowed list for
  where they are declared, any [general.tpu] python-depends, an empty
  component `src`, a capability or ROCm arch list with no supported entry;
- kcheck recommendations: malformed capabilities or archs (error),
  unsupported ones (warning), min above max (error), an empty `backends`
  (error), duplicates, components of undeclared backends, a `stable-abi`
  that is not major.minor, a repo-id that is not owner/name, an unknown
  license (warnings).

Fix: use a key and value the message accepts (it names the nearest key to a
misspelt one); `kernel-builder update-build` migrates v3/v4 files.
)",
                 R"ex([general]
backends = ["CUDA"]          # backends are lowercase

[torch-noarch]
cuda-capabilities = ["8.0"]  # this table has no such key)ex",
                 R"ex([general]
backends = ["cuda"]

[kernel.relu]
backend = "cuda"
cuda-capabilities = ["8.0"])ex",
                 0,
                 RuleNeeds::source};
};

}  // namespace

std::unique_ptr<Rule> make_kc002_schema_violation() { return std::make_unique<SchemaViolation>(); }

}  // namespace kcheck
