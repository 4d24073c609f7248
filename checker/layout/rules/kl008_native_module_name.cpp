#include <regex>

#include "checker/core/tree_facts.h"
#include "checker/layout/rules/layout_rule_factories.h"

namespace kcheck {
namespace {

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
    static const std::regex id_shape(R"(_[a-z][a-z0-9_]*_(cann|cpu|cuda|metal|neuron|rocm|tpu|xpu)_[A-Za-z0-9_]+)");
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
                  std::regex_match(file.substr(0, file.size() - suffix.size()), id_shape);
    if (!shaped)
      sink.report(where, "native module '" + file +
                             "' is not named <id>.abi3.so with id _<module>_<backend>_<unique> in the variant root");
  }

  RuleInfo info_{"KL008", "Native module not named <id>.abi3.so, or more than one", Severity::error,
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
