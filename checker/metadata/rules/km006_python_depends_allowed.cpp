#include <algorithm>

#include "checker/core/policy.h"
#include "checker/metadata/rules/metadata_rule_table.h"
#include "checker/metadata/rules/metadata_rule_support.h"

namespace kcheck {
namespace {

std::vector<std::string> dependency_names(const std::vector<AllowedPythonDependency>& dependencies) {
  std::vector<std::string> names;
  names.reserve(dependencies.size());
  for (const AllowedPythonDependency& dependency : dependencies) names.push_back(dependency.name);
  return names;
}

std::vector<std::string> backend_dependency_names(const PythonPolicy& python, const std::string& backend) {
  const auto found = python.backend_dependencies.find(backend);
  return found == python.backend_dependencies.end() ? std::vector<std::string>{} : dependency_names(found->second);
}

class PythonDependsAllowed final : public PerVariantMetadataRule {
 public:
  const RuleInfo& info() const override { return info_; }

 protected:
  void check_variant(const VariantFacts& variant, const RuleContext& context, FindingSink& sink) const override {
    const MetadataFacts& metadata = variant.metadata;
    const PythonPolicy& python = context.policy.python;
    if (metadata.python_depends) {
      // The builder writes the general list followed by the backend's list.
      std::vector<std::string> allowed = dependency_names(python.general_dependencies);
      const std::string backend = metadata.backend_type.value_or("");
      for (std::string& name : backend_dependency_names(python, backend)) allowed.push_back(std::move(name));
      const std::string where = backend.empty() ? "general" : "general and " + backend;
      report_unlisted(variant, *metadata.python_depends, "/python-depends", allowed, where, sink);
    }
    if (metadata.python_depends_backends) {
      for (const auto& [backend, names] : *metadata.python_depends_backends) {
        report_unlisted(variant, names, "/python-depends-backends/" + backend,
                        backend_dependency_names(python, backend), backend, sink);
      }
    }
  }

 private:
  static void report_unlisted(const VariantFacts& variant, const std::vector<std::string>& declared,
                              const std::string& pointer, const std::vector<std::string>& allowed,
                              const std::string& which_lists, FindingSink& sink) {
    for (std::size_t index = 0; index < declared.size(); ++index) {
      if (std::find(allowed.begin(), allowed.end(), declared[index]) != allowed.end()) continue;
      sink.report(metadata_place(variant, pointer + "/" + std::to_string(index)),
                  "Python dependency '" + declared[index] + "' is not allowed for " + which_lists +
                      " (allowed: " + comma_list(allowed) + ")");
    }
  }

  RuleInfo info_{"KM006",
                 "python-depends entry not allowed for the backend",
                 Severity::error,
                 R"(A kernel may only depend on the curated Python packages the Hub loader
knows (build-toml.md §5.5): the general list (einops, helion, tvm-ffi) and,
for the variant's backend, that backend's list (cuda: nvidia-cutlass-dsl,
xpu: onednn, neuron: nki). The loader validates each `python-depends` name
against those lists and refuses to load the kernel on an unknown one.
`python-depends-backends` lists, when present, are checked against their own
backend's list only.

Fix: remove the dependency (vendor the code you need, or use Torch), or move
a backend-specific package to that backend's list in build.toml
(`[general.cuda] python-depends`).
)",
                 R"ex("backend": {"type": "cpu"}, "python-depends": ["numpy"])ex",
                 R"ex("backend": {"type": "cpu"}, "python-depends": []      # and no numpy import)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_km006_python_depends_allowed() { return std::make_unique<PythonDependsAllowed>(); }

}  // namespace kcheck
