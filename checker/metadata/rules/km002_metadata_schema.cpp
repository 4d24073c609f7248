#include "checker/metadata/rules/metadata_rule_table.h"
#include "checker/metadata/rules/metadata_rule_support.h"

namespace kcheck {
namespace {

class MetadataSchema final : public PerVariantMetadataRule {
 public:
  const RuleInfo& info() const override { return info_; }

 protected:
  bool judges_unreadable_metadata() const override { return true; }

  void check_variant(const VariantFacts& variant, const RuleContext&, FindingSink& sink) const override {
    const MetadataFacts& metadata = variant.metadata;
    if (!metadata.present) return;  // KM001
    if (!metadata.parse_error.empty()) {
      Place place = metadata_place(variant);
      place.location.line = metadata.parse_error_line;
      place.location.column = metadata.parse_error_column;
      sink.report(place, "metadata.json is " + metadata.parse_error);
      return;
    }
    for (const MetadataProblem& problem : metadata.schema_errors) {
      const std::string where = problem.pointer.empty() ? "metadata.json" : problem.pointer;
      sink.report(metadata_place(variant, problem.pointer), where + ": " + problem.message);
    }
    for (const std::string& key : metadata.unknown_keys) {
      sink.report(Severity::warning, metadata_place(variant, "/" + key),
                  "unknown top-level key '" + key +
                      "' (known: id, name, version, license, upstream, source, python-depends, "
                      "python-depends-backends, kernel-depends, backend, digest, provenance)");
    }
  }

 private:
  RuleInfo info_{"KM002",
                 "metadata.json is not valid JSON or breaks the schema",
                 Severity::error,
                 R"(metadata.json must be valid JSON whose shape follows build-variants.md §4:
required `id`, `name` (a kernel name: ^[a-z][-a-z0-9]*[a-z0-9]$), `version`
(an integer >= 0), `license`, `python-depends` (an array of strings; the Hub
loader rejects the file without it, although the docs call it optional), and
`backend` with `type` one of cann, cpu, cuda, metal, neuron, rocm, tpu, xpu;
`backend.archs` (an array of strings) is required for compiled cuda and rocm
variants. Optional keys must have their documented shapes: `kernel-depends`
entries are {repo-id, version|revision}; `provenance` has `kernel-builder`
with `version` and, together or not at all, a full `commit` and `dirty`;
`digest` has `algorithm` and `files`; `upstream`/`source` are git URLs. The
loader refuses a file that breaks these rules, so the variant does not load.
Unknown top-level keys are a warning: the loader ignores them, so they are
usually a typo of a key that was meant to be read.

Fix: regenerate metadata.json with kernel-builder, or correct the key named
in the finding.
)",
                 R"ex({"id": "_relu_cpu_0a1b2c3", "name": "relu", "version": "1",
 "license": "apache-2.0", "backend": {"type": "cpu"}}
# version is a string and python-depends is missing)ex",
                 R"ex({"id": "_relu_cpu_0a1b2c3", "name": "relu", "version": 1,
 "license": "apache-2.0", "python-depends": [], "backend": {"type": "cpu"}})ex"};
};

}  // namespace

std::unique_ptr<Rule> make_km002_metadata_schema() { return std::make_unique<MetadataSchema>(); }

}  // namespace kcheck
