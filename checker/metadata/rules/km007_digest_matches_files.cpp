#include "checker/metadata/metadata_reader.h"
#include "checker/metadata/rules/metadata_rule_table.h"
#include "checker/metadata/rules/metadata_rule_support.h"

namespace kcheck {
namespace {

std::string file_pointer(const std::string& path) { return "/digest/files/" + json_pointer_token(path); }

class DigestMatchesFiles final : public PerVariantMetadataRule {
 public:
  const RuleInfo& info() const override { return info_; }

 protected:
  void check_variant(const VariantFacts& variant, const RuleContext&, FindingSink& sink) const override {
    if (!variant.metadata.digest_declared) {
      sink.report(Severity::warning, metadata_place(variant),
                  "metadata.json has no digest: the loader cannot verify that the files are the ones built");
      return;
    }
    if (!variant.digest || !variant.metadata.digest) return;  // not verified, or a malformed shape (KM002)
    const DigestCheck& check = *variant.digest;
    if (!check.error.empty()) {
      sink.report(metadata_place(variant, "/digest/algorithm"), check.error);
      return;
    }
    for (const std::string& path : check.missing) {
      sink.report(metadata_place(variant, file_pointer(path)),
                  "digest lists '" + path + "' but the variant has no such file (or it is one the digest excludes)");
    }
    for (const std::string& path : check.mismatched) {
      sink.report(metadata_place(variant, file_pointer(path)),
                  "the " + check.algorithm + " hash of '" + path +
                      "' differs from the one in the digest: the file changed after the build");
    }
    for (const std::string& path_and_reason : check.unreadable) {
      sink.report(metadata_place(variant, "/digest/files"), "cannot verify " + path_and_reason);
    }
    for (const std::string& path : check.unlisted) {
      sink.report(metadata_place(variant, "/digest/files"),
                  "'" + path + "' is in the variant but not listed in the digest: it was added after the build");
    }
  }

 private:
  RuleInfo info_{"KM007",
                 "digest does not match the files",
                 Severity::error,
                 R"(metadata.json's `digest` records a hash of every file of the variant
(build-variants.md §4.5: every regular file, through symlinks, except
metadata.json and metadata.json.sigstore in the variant root, __pycache__
and *.pyc; SHA-256 or SHA-512, standard base64). The loader verifies it and
refuses a variant whose files differ: a listed file missing, a hash that
differs, a file not listed, or an algorithm other than sha256/sha512. A
variant without a digest loads but cannot be verified (warning).

Fix: do not edit, add or delete files in a variant after building it;
rebuild with kernel-builder (`kcheck build`) to write a fresh digest.
)",
                 R"ex("digest": {"algorithm": "sha256", "files": {"__init__.py": "<hash>"}}
# while the variant also holds _ops.py and _relu_cpu_0a1b2c3.abi3.so)ex",
                 R"ex(# let the builder recompute the digest after the last change
"digest": {"algorithm": "sha256", "files": {"__init__.py": "<hash>",
  "_ops.py": "<hash>", "_relu_cpu_0a1b2c3.abi3.so": "<hash>"}})ex",
                 0,
                 RuleNeeds::build,
                 OptionalFact::digest};
};

}  // namespace

std::unique_ptr<Rule> make_km007_digest_matches_files() { return std::make_unique<DigestMatchesFiles>(); }

}  // namespace kcheck
