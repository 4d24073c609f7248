#include <algorithm>

#include "checker/facts/kernel_identity.h"
#include "checker/support/text_scan.h"
#include "checker/namespace/rules/namespace_rule_table.h"

namespace kcheck {
namespace {

// What the unique part of an id is, as far as a clash between revisions goes.
enum class UniqueMaterial { hash_or_random, missing, version, tag, unrecognised };

// [0-9a-f]{7,64}(_dirty)?: a git commit, short or full.
bool is_commit_hash(std::string_view unique) {
  if (unique.ends_with("_dirty")) unique.remove_suffix(6);
  return unique.size() >= 7 && unique.size() <= 64 && text::consists_of(unique, text::is_lower_hex);
}

// [a-z2-7]{13}: 64 random bits in lowercase base32.
bool is_base32_random(std::string_view unique) {
  return unique.size() == 13 &&
         text::consists_of(unique, [](char c) { return text::is_lower(c) || (c >= '2' && c <= '7'); });
}

// [vV]?[0-9]+([._][0-9]+)*([._]?(dev|rc|post|a|b)[0-9]*)?, e.g. v1_2_3, 0.4.post1.
bool is_version_like(std::string_view unique) {
  text::Scanner scan(unique);
  if (!scan.take('v')) scan.take('V');
  if (scan.take_while(text::is_digit).empty()) return false;
  for (;;) {  // each [._] followed by a digit starts one more component
    const std::string_view rest = scan.rest();
    if (rest.size() < 2 || (rest[0] != '.' && rest[0] != '_') || !text::is_digit(rest[1])) break;
    scan.take(rest[0]);
    scan.take_while(text::is_digit);
  }
  if (scan.done()) return true;
  if (!scan.take('.')) scan.take('_');
  if (!(scan.take("dev") || scan.take("rc") || scan.take("post") || scan.take('a') || scan.take('b'))) return false;
  scan.take_while(text::is_digit);
  return scan.done();
}

// [A-Za-z]+(_[A-Za-z]+)*: words, e.g. "stable" or "release_candidate".
bool is_word_tag(std::string_view unique) {
  return text::consists_of(unique, [](char c) { return text::is_alpha(c) || c == '_'; }) && unique.front() != '_' &&
         unique.back() != '_' && unique.find("__") == std::string_view::npos;
}

UniqueMaterial classify_unique_part(const std::string& unique) {
  if (unique.empty()) return UniqueMaterial::missing;
  if (is_commit_hash(unique) || is_base32_random(unique)) return UniqueMaterial::hash_or_random;
  if (is_version_like(unique)) return UniqueMaterial::version;
  if (is_word_tag(unique)) return UniqueMaterial::tag;
  return UniqueMaterial::unrecognised;
}

class NamespaceWithoutUniquePart final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) check_variant(variant, sink);
  }

 private:
  static void check_variant(const VariantFacts& variant, FindingSink& sink) {
    const std::optional<std::string> id = variant_kernel_id(variant);
    if (!id) return;
    const std::optional<std::string> module = variant.metadata.name ? kernel_module_name(variant) : std::nullopt;
    const std::optional<KernelIdParts> parts = split_kernel_id(*id, module);
    const Place where{.variant = variant.directory_name,
                      .file = variant.report_path(variant.metadata.id ? "metadata.json" : ""),
                      .location = {.json_pointer = variant.metadata.id ? "/id" : ""}};
    if (!parts) {
      sink.report(where, "op namespace `" + *id + "` does not have the shape _<module>_<backend>_<unique>" +
                             (module ? " for module `" + *module + "`" : "") +
                             ", so it carries no recognisable unique part");
      return;
    }
    const std::string prefix = "_" + parts->module + "_" + parts->backend + "_";
    switch (classify_unique_part(parts->unique)) {
      case UniqueMaterial::hash_or_random:
        return;
      case UniqueMaterial::missing:
        sink.report(where, "op namespace `" + *id + "` ends after the backend: nothing after `" + prefix +
                               "` tells two revisions apart");
        return;
      case UniqueMaterial::version:
        sink.report(where, "op namespace `" + *id + "` carries the version `" + parts->unique +
                               "` instead of a commit hash or random value; two builds of one version clash");
        return;
      case UniqueMaterial::tag:
        sink.report(where, "op namespace `" + *id + "` carries the tag `" + parts->unique +
                               "` instead of a commit hash or random value; every build with that tag clashes");
        return;
      case UniqueMaterial::unrecognised:
        sink.report(where,
                    "op namespace `" + *id + "`: unique part `" + parts->unique +
                        "` is neither 7+ hex digits of a commit (optionally _dirty) nor a 13-character random value");
        return;
    }
  }

  RuleInfo info_{"KO002",
                 "Op namespace carries no unique material",
                 Severity::warning,
                 R"doc(Judges the unique part of the variant's id / op namespace
`_<module>_<backend>_<unique>`: it should be the short commit hash of the
kernel source (`[0-9a-f]{7}`, optionally `_dirty`) or a random base32 value
(13 characters of `[a-z2-7]`), as the builder writes it. Flags an id without
a unique part, with a version number (`1_2_0`, `v3`) or a tag (`main`,
`dev`) in its place, or with something else unrecognisable.

Why: Torch op namespaces are process-global. Two revisions of a kernel
loaded in one process (two models pinning different revisions) must not
register the same namespace, or the second import fails; a version or tag
is shared by every build made from it.

Fix: let the builder pick the id (Nix builds use the commit hash), or pass a
commit-derived `--unique-id`.
)doc",
                 R"ex("id": "_relu_cuda_v1")ex",
                 R"ex("id": "_relu_cuda_0a1b2c3"      # unique part from the git tree or random)ex",
                 0,
                 RuleNeeds::source,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_ko002_namespace_without_unique_part() {
  return std::make_unique<NamespaceWithoutUniquePart>();
}

}  // namespace kcheck
