#include <array>

#include "checker/support/text_scan.h"
#include "checker/facts/tree_facts.h"
#include "checker/layout/rules/layout_rule_table.h"

namespace kcheck {
namespace {

constexpr std::array<std::string_view, 8> kBackendSeparators = {"_cann_",   "_cpu_",  "_cuda_", "_metal_",
                                                                "_neuron_", "_rocm_", "_tpu_",  "_xpu_"};

// _[a-z][a-z0-9_]*_<backend>_[A-Za-z0-9_]+ (build-variants.md §3.2), matched
// by trying each place the backend separator may start: the module part
// before it must be [a-z0-9_]*, so the candidates stop at the first other
// character.
bool has_id_shape(std::string_view id) {
  auto word_char = [](char c) { return text::is_alnum(c) || c == '_'; };
  if (id.size() < 2 || id[0] != '_' || !text::is_lower(id[1]) || !text::consists_of(id, word_char)) return false;
  for (std::size_t at = 2; at < id.size(); ++at) {
    for (std::string_view separator : kBackendSeparators)
      if (id.substr(at).starts_with(separator) && id.size() > at + separator.size()) return true;
    if (text::is_upper(id[at])) return false;  // the module part ends here
  }
  return false;
}

class NativeModuleName final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    if (context.tree.scope == AuditScope::module) return;
    for (const VariantFacts& variant : context.tree.variants) check_variant(variant, sink);
  }

 private:
  static void check_variant(const VariantFacts& variant, FindingSink& sink) {
    Place variant_place{.variant = variant.directory_name, .file = variant.relative_path};
    bool python_only = variant.name && variant.name->kind == VariantKind::python_only;
    if (python_only) {
      for (const NativeModuleFacts& module : variant.native_modules)
        sink.report({.variant = variant.directory_name, .file = variant.report_path(module.relative_path)},
                    "Python-only variant " + variant.directory_name + " ships a native module '" +
                        module.relative_path + "'; Python-only variants have none");
      return;
    }
    if (variant.native_modules.size() > 1) {
      std::string names;
      for (const auto& module : variant.native_modules) names += (names.empty() ? "" : ", ") + module.relative_path;
      sink.report(variant_place, "more than one native module in the variant (" + names +
                                     "); the layout expects exactly one <id>.abi3.so");
    }
    for (const NativeModuleFacts& module : variant.native_modules) check_module_name(variant, module, sink);
  }

  static void check_module_name(const VariantFacts& variant, const NativeModuleFacts& module, FindingSink& sink) {
    Place where{.variant = variant.directory_name, .file = variant.report_path(module.relative_path)};
    const std::string& file = module.relative_path;
    if (variant.metadata.id) {
      std::string expected = *variant.metadata.id + ".abi3.so";
      if (file != expected)
        sink.report(where, "native module '" + file + "' is not named after metadata id: expected '" + expected + "'");
      return;
    }
    const std::string suffix = ".abi3.so";
    bool shaped = file.ends_with(suffix) && file.find('/') == std::string::npos &&
                  has_id_shape(std::string_view(file).substr(0, file.size() - suffix.size()));
    if (!shaped)
      sink.report(where, "native module '" + file +
                             "' is not named <id>.abi3.so with id _<module>_<backend>_<unique> in the variant root");
  }

  RuleInfo info_{
      "KL008",
      "Native module not named <id>.abi3.so, or more than one",
      Severity::error,
      R"(A compiled variant holds exactly one native module, named after the
variant's id: `<id>.abi3.so`, where the id (metadata.json `id`) already starts
with `_`, e.g. `_relu_cuda_1a2b3c4.abi3.so`. `_ops.py` imports the module by
that name and the op namespace is the same id; a second module, or a module
under another name, is never loaded, or clashes with another revision.
Python-only variants (torch-<backend>) ship no native module at all.

Fix: build with kernel-builder or `kcheck build`, which name the module from
the id; link everything into that one module.
)",
      R"ex(build/torch213-cxx11-cu130-x86_64-linux/relu_kernels.so)ex",
      R"ex(build/torch213-cxx11-cu130-x86_64-linux/_relu_cuda_1a2b3c4.abi3.so   # <id>.abi3.so, one per variant)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_kl008_native_module_name() { return std::make_unique<NativeModuleName>(); }

}  // namespace kcheck
