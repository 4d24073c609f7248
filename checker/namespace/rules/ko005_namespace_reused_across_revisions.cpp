#include <algorithm>

#include "checker/facts/tree_facts.h"
#include "checker/namespace/rules/namespace_rule_table.h"

namespace kcheck {
namespace {

bool registers(const RevisionBuild& build, const std::string& name) {
  return std::find(build.namespaces.begin(), build.namespaces.end(), name) != build.namespaces.end();
}

// Judges the builds of this tree's revision against those of the other
// revisions `kcheck scan` was given; silent on a single revision.
class NamespaceReusedAcrossRevisions final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const TreeFacts& tree = context.tree;
    for (const RevisionBuild& own : tree.revision_builds) {
      if (own.revision != tree.revision) continue;
      for (const std::string& name : own.namespaces) {
        for (const RevisionBuild& other : tree.revision_builds) {
          if (other.revision == tree.revision || other.variant != own.variant) continue;
          if (other.content_digest == own.content_digest) continue;
          if (!registers(other, name)) continue;
          const VariantFacts* variant = find_variant(tree, own.variant);
          sink.report({.variant = own.variant, .file = variant ? variant->relative_path : ""},
                      "op namespace `" + name + "` is also registered by revision `" + other.revision +
                          "`, whose build of this variant has other files: loading both revisions in one "
                          "process clashes");
        }
      }
    }
  }

 private:
  static const VariantFacts* find_variant(const TreeFacts& tree, const std::string& name) {
    for (const VariantFacts& variant : tree.variants)
      if (variant.directory_name == name) return &variant;
    return nullptr;
  }

  RuleInfo info_{"KO005",
                 "Op namespace reused by a different build of another revision",
                 Severity::error,
                 R"doc(Hub-side check over several revisions of one repository
(`kcheck scan` given revision directories, see docs/scan.md, "What is
scanned"). Flags a variant whose native module (or `_ops.py`) registers
an op namespace that the same variant of another revision also registers
while the two builds' files differ (their content digests, computed over the
files the metadata digest covers, are not equal). Identical rebuilds are not
flagged, nor are two variants of one revision (one environment loads one
variant of a revision, e.g. `torch211-cxx11-cu126-x86_64-linux`, and the
same-named variant of the other revision).

Why: Torch op namespaces are process-global. Two models may pin different
revisions of one kernel; when both revisions register `_relu_cuda_0a1b2c3`
with different code, the second `TORCH_LIBRARY` registration fails, or one
revision silently runs the other's kernels.

Fix: give every build its own namespace: derive the id's unique part from
the kernel source's commit (a rebuild of changed sources gets a new commit)
or from a random value, never reuse an id across changed builds.
)doc",
                 R"ex(# revisions v1 and v2, different bytes, the same namespace
v1/build/torch211-cxx11-cpu-x86_64-linux/_relu_cpu_0a1b2c3.abi3.so   # registers _relu_cpu_0a1b2c3
v2/build/torch211-cxx11-cpu-x86_64-linux/_relu_cpu_0a1b2c3.abi3.so   # registers _relu_cpu_0a1b2c3)ex",
                 R"ex(# v2 rebuilt from its own commit: a new id, a new namespace
v2/build/torch211-cxx11-cpu-x86_64-linux/_relu_cpu_5d6e7f8.abi3.so   # registers _relu_cpu_5d6e7f8)ex",
                 0,
                 RuleNeeds::build,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_ko005_namespace_reused_across_revisions() {
  return std::make_unique<NamespaceReusedAcrossRevisions>();
}

}  // namespace kcheck
