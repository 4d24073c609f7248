#include "checker/metadata/rules/metadata_rule_table.h"
#include "checker/metadata/rules/metadata_rule_support.h"

namespace kcheck {
namespace {

// The metadata backend.type a variant name implies; nullopt when the name
// does not constrain it (torch-universal).
std::optional<std::string> backend_implied_by(const VariantName& name) {
  if (name.backend == "universal") return std::nullopt;
  if (name.backend == "npu") return "cann";  // the loader looks for torch-npu on CANN
  return name.backend;
}

class BackendMatchesVariant final : public PerVariantMetadataRule {
 public:
  const RuleInfo& info() const override { return info_; }

 protected:
  void check_variant(const VariantFacts& variant, const RuleContext&, FindingSink& sink) const override {
    if (!variant.name || !variant.metadata.backend_type) return;  // KL002 / KM002
    const auto expected = backend_implied_by(*variant.name);
    const std::string& declared = *variant.metadata.backend_type;
    if (!expected || declared == *expected) return;
    sink.report(metadata_place(variant, "/backend/type"), "backend.type is '" + declared + "' but the variant name " +
                                                              variant.directory_name + " is a " + *expected +
                                                              " build: backend.type must be '" + *expected + "'");
  }

 private:
  RuleInfo info_{"KM004",
                 "backend.type contradicts the variant name",
                 Severity::error,
                 R"(The variant directory name carries the backend (the compute token: cpu,
cu130 -> cuda, rocm71 -> rocm, xpu20253 -> xpu, cann82 -> cann, metal,
neuron, tpu; `torch-<backend>` for Python-only builds, with torch-npu <-> cann).
The loader picks a variant by its name, then trusts metadata.json's
`backend.type` for the Python dependencies it validates and for what it
reports; when the two disagree, a CUDA build may be loaded as a ROCm one or
dependencies are checked against the wrong list. `torch-universal` is not
constrained.

Fix: rebuild the variant, or correct `backend.type` to the backend in the
variant name (if the directory was renamed, rename it back).
)",
                 R"ex(build/torch213-cxx11-cu130-x86_64-linux/metadata.json:
  "backend": {"type": "rocm", "archs": ["gfx942"]})ex",
                 R"ex(build/torch213-cxx11-cu130-x86_64-linux/metadata.json:
  "backend": {"type": "cuda", "archs": ["8.0", "9.0a"]})ex"};
};

}  // namespace

std::unique_ptr<Rule> make_km004_backend_matches_variant() { return std::make_unique<BackendMatchesVariant>(); }

}  // namespace kcheck
