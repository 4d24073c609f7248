#include <algorithm>
#include <map>
#include <set>

#include "checker/core/policy.h"
#include "checker/facts/tree_facts.h"
#include "checker/layout/rules/layout_rule_table.h"
#include "checker/kinds/variant_name.h"

namespace kcheck {
namespace {

class IncompleteVariantSet final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    if (context.tree.scope != AuditScope::tree) return;  // one variant cannot be complete
    std::set<std::string> present;
    std::set<std::pair<std::string, std::string>> covered;  // (system, backend)
    for (const VariantFacts& variant : context.tree.variants) {
      if (!variant.name || variant.name->kind != VariantKind::torch) continue;
      present.insert(variant.directory_name);
      covered.insert({variant.name->system(), variant.name->backend});
    }
    std::set<std::string> required_anywhere;
    for (const RequiredVariantSet& set : context.policy.required_variants) {
      required_anywhere.insert(set.variants.begin(), set.variants.end());
      if (!covered.contains({set.system, set.backend})) continue;
      std::string missing;
      for (const std::string& name : set.variants)
        if (!present.contains(name)) missing += (missing.empty() ? "" : ", ") + name + what_builds(name);
      if (missing.empty()) continue;
      const std::string message = "the " + set.backend + " variants for " + set.system +
                                  " are incomplete under policy '" + context.policy.name + "': missing " + missing;
      if (!context.options.whole_download_command.empty())
        sink.report(Severity::note, {.file = relative_build_dir(context.tree)},
                    message +
                        "; the Hugging Face cache holds only what was downloaded (the `kernels` loader "
                        "fetches one variant) and does not say what the repository holds: `" +
                        context.options.whole_download_command + "` downloads all of it to judge the set");
      else if (context.options.local_build)
        sink.report(Severity::note, {.file = relative_build_dir(context.tree)},
                    message + "; a local build (--local-build) is not judged on them, an upload is");
      else
        sink.report({.file = relative_build_dir(context.tree)},
                    message +
                        ". Each is built with that Torch (and CUDA) release: kernel-builder builds the whole "
                        "set; `kcheck build` builds for the Torch it finds. To judge only what this machine "
                        "built, add --local-build");
    }
    for (const std::string& name : present)
      if (!required_anywhere.contains(name))
        sink.report(Severity::note, {.variant = name, .file = relative_build_dir(context.tree) + "/" + name},
                    "variant " + name + " is in no required list of policy '" + context.policy.name +
                        "' (an older Torch or an extra backend version): allowed, but not needed for compliance");
  }

 private:
  // " (Torch 2.12, CUDA 12.6)": what a missing variant is built with.
  static std::string what_builds(const std::string& variant) {
    const std::optional<VariantName> name = parse_variant_name(variant);
    if (!name || name->kind != VariantKind::torch) return "";
    std::string text = " (Torch " + name->framework_version.str();
    if (name->backend == "cuda") text += ", CUDA " + name->backend_version.str();
    if (name->backend == "rocm") text += ", ROCm " + name->backend_version.str();
    if (name->backend == "xpu") text += ", XPU " + name->backend_version.str();
    return text + ")";
  }

  static std::string relative_build_dir(const TreeFacts& tree) {
    return tree.build_dir.lexically_relative(tree.audited_root).generic_string();
  }

  RuleInfo info_{"KL006",
                 "Required variants missing for a backend and system",
                 Severity::error,
                 R"(A kernel is compliant for a (backend, system) pair only if build/ holds
every variant the policy requires for it: for policy `hub`, one build per
bundled Torch release (2.12 and 2.13) and, for CUDA, per CUDA version
(12.6, 13.0, 13.2). Users on any of those Torch/CUDA combinations then find a
build; with one missing, `get_kernel` fails for them. Only pairs the tree
covers are judged: a CPU-only kernel need not ship CUDA builds.

A variant that no required list names (an older Torch) is reported as a note.

Fix: build the missing variants (kernel-builder builds the whole bundle;
`kcheck build` builds for the local Torch) and upload them together.
)",
                 R"ex(# x86_64-linux, cpu, policy hub
build/torch213-cxx11-cpu-x86_64-linux/     # torch212-cxx11-cpu-x86_64-linux missing)ex",
                 R"ex(build/torch212-cxx11-cpu-x86_64-linux/
build/torch213-cxx11-cpu-x86_64-linux/)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_kl006_incomplete_variant_set() { return std::make_unique<IncompleteVariantSet>(); }

}  // namespace kcheck
