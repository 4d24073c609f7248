#include "checker/metadata/rules/metadata_rule_table.h"
#include "checker/metadata/rules/metadata_rule_support.h"

namespace kcheck {
namespace {

class MetadataMissing final : public PerVariantMetadataRule {
 public:
  const RuleInfo& info() const override { return info_; }

 protected:
  bool judges_unreadable_metadata() const override { return true; }

  void check_variant(const VariantFacts& variant, const RuleContext&, FindingSink& sink) const override {
    if (variant.metadata.present || !variant.listed) return;  // an unlistable variant is KL007
    sink.report(metadata_place(variant), "variant " + variant.directory_name +
                                             " has no metadata.json: the loader needs it to read the kernel's id, "
                                             "backend, dependencies and digest");
  }

 private:
  RuleInfo info_{"KM001",
                 "metadata.json missing",
                 Severity::error,
                 R"(Every variant directory must contain metadata.json (build-variants.md §4):
the Hub loader reads it to learn the kernel's id, name, version, license,
backend and Python dependencies, and to verify the files against the digest.
A variant without it cannot be loaded by the current loader.

Fix: build the variant with kernel-builder (`kcheck build`), which writes
metadata.json, and upload it together with the rest of the variant.
)",
                 R"ex(build/torch213-cxx11-cpu-x86_64-linux/
  __init__.py
  _ops.py
  _relu_cpu_0a1b2c3.abi3.so       # no metadata.json)ex",
                 R"ex(build/torch213-cxx11-cpu-x86_64-linux/
  __init__.py
  _ops.py
  _relu_cpu_0a1b2c3.abi3.so
  metadata.json                   # written by the builder)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_km001_metadata_missing() { return std::make_unique<MetadataMissing>(); }

}  // namespace kcheck
