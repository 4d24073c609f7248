#include "checker/facts/tree_facts.h"
#include "checker/metadata/ascii_text.h"
#include "checker/metadata/rules/metadata_rule_table.h"
#include "checker/metadata/rules/metadata_rule_support.h"

namespace kcheck {
namespace {

std::string display(const std::string& name) { return "'" + name + "'"; }
std::string display(long long version) { return std::to_string(version); }

class NameVersionConsistency final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    if (context.tree.scope == AuditScope::module) return;
    report_disagreements(context.tree, &MetadataFacts::name, "name", sink);
    report_disagreements(context.tree, &MetadataFacts::version, "version", sink);
    check_repository_name(context, sink);
  }

 private:
  // The first variant (in directory order) that declares the key is the
  // reference; every other variant that declares a different value is reported.
  template <typename Value>
  static void report_disagreements(const TreeFacts& tree, std::optional<Value> MetadataFacts::*key,
                                   const std::string& key_name, FindingSink& sink) {
    const VariantFacts* reference = nullptr;
    for (const VariantFacts& variant : tree.variants) {
      const auto& value = variant.metadata.*key;
      if (!variant.metadata.readable() || !value) continue;
      if (reference == nullptr) {
        reference = &variant;
      } else if (*value != *(reference->metadata.*key)) {
        sink.report(metadata_place(variant, "/" + key_name),
                    key_name + " is " + display(*value) + " but " + display(*(reference->metadata.*key)) + " in " +
                        reference->directory_name + ": every variant of a kernel must have the same " + key_name);
      }
    }
  }

  static void check_repository_name(const RuleContext& context, FindingSink& sink) {
    const std::string& repo_id = context.options.repo_id;
    if (repo_id.empty()) return;
    const std::string repository_name = repo_id.substr(repo_id.rfind('/') + 1);
    for (const VariantFacts& variant : context.tree.variants) {
      const auto& name = variant.metadata.name;
      if (!variant.metadata.readable() || !name || ascii_lowercase(*name) == ascii_lowercase(repository_name)) continue;
      sink.report(
          Severity::warning, metadata_place(variant, "/name"),
          "name '" + *name + "' differs from the repository name '" + repository_name + "' of --repo-id " + repo_id);
    }
  }

  RuleInfo info_{"KM005",
                 "name or version differ between variants",
                 Severity::error,
                 R"(All variants of one kernel upload are builds of the same source, so their
metadata.json must agree on `name` and `version`; the Hub uploader refuses
mixed versions and the loader would otherwise give a different kernel
depending on the machine. A variant that disagrees usually comes from an
older build left in build/. With `--repo-id owner/name`, a `name` that
differs from the repository name (compared case-insensitively) is a warning:
users find the kernel by the repository name.

Fix: rebuild every variant from the same source revision, or delete stale
variants before uploading.
)",
                 R"ex(build/torch212-cxx11-cpu-x86_64-linux/metadata.json:  "version": 1
build/torch213-cxx11-cpu-x86_64-linux/metadata.json:  "version": 2)ex",
                 R"ex(# rebuild every variant from one revision
build/torch212-cxx11-cpu-x86_64-linux/metadata.json:  "version": 2
build/torch213-cxx11-cpu-x86_64-linux/metadata.json:  "version": 2)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_km005_name_version_consistency() { return std::make_unique<NameVersionConsistency>(); }

}  // namespace kcheck
