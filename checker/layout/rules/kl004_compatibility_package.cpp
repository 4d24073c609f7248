#include <algorithm>
#include <set>

#include "checker/facts/kernel_identity.h"
#include "checker/core/policy.h"
#include "checker/facts/tree_facts.h"
#include "checker/layout/rules/layout_rule_table.h"

namespace kcheck {
namespace {

const PythonFileFacts* python_file(const VariantFacts& variant, const std::string& relative) {
  for (const PythonFileFacts& file : variant.python_files)
    if (file.relative_path == relative) return &file;
  return nullptr;
}

std::string join_names(const std::set<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

class CompatibilityPackage final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    if (context.tree.scope == AuditScope::module || context.policy.package_layout != PackageLayout::top_level) return;
    for (const VariantFacts& variant : context.tree.variants) {
      if (!variant.name || !variant.find_file("__init__.py")) continue;  // KL002 / KL003 report those
      auto module = kernel_module_name(variant);
      if (!module) continue;
      const std::string compat = *module + "/__init__.py";
      if (!variant.find_file(compat)) {
        // The kernel's own `<module>.py` has the name: a package there would shadow it (KP008).
        if (variant.find_file(*module + ".py")) continue;
        sink.report(Severity::warning, {.variant = variant.directory_name, .file = variant.report_path(*module)},
                    "the compatibility package " + compat +
                        " is missing: older loaders and plain PYTHONPATH imports look for it");
        continue;
      }
      compare_public_names(variant, compat, sink);
    }
  }

 private:
  static void compare_public_names(const VariantFacts& variant, const std::string& compat, FindingSink& sink) {
    const PythonFileFacts* top = python_file(variant, "__init__.py");
    const PythonFileFacts* nested = python_file(variant, compat);
    if (!top || !nested || !top->all_names || !nested->all_names) return;  // names not statically known
    std::set<std::string> top_names(top->all_names->begin(), top->all_names->end());
    std::set<std::string> nested_names(nested->all_names->begin(), nested->all_names->end());
    std::set<std::string> missing, extra;
    std::set_difference(top_names.begin(), top_names.end(), nested_names.begin(), nested_names.end(),
                        std::inserter(missing, missing.end()));
    std::set_difference(nested_names.begin(), nested_names.end(), top_names.begin(), top_names.end(),
                        std::inserter(extra, extra.end()));
    if (missing.empty() && extra.empty()) return;
    std::string message = compat + " does not export the same public names as __init__.py";
    if (!missing.empty()) message += "; missing: " + join_names(missing);
    if (!extra.empty()) message += "; only in the compatibility package: " + join_names(extra);
    sink.report({.variant = variant.directory_name,
                 .file = variant.report_path(compat),
                 .location = {.line = nested->all_line}},
                message);
  }

  RuleInfo info_{"KL004",
                 "Compatibility package missing or out of step with __init__.py",
                 Severity::error,
                 R"(Builders until mid-2026 placed a small package <module>/__init__.py inside
each variant that re-exports the top-level package, so that old loaders
(which import build/<variant>/<module>) and plain PYTHONPATH imports keep
working. The Hub's requirements page still asks for it; current builders no
longer write it, and the current loader only falls back to it.

- warning: the compatibility package is missing (not where the kernel ships
  a module <module>.py of its own at the variant root: a package there would
  shadow it, KP008).
- error: it exists but its __all__ differs from the top-level __init__.py's,
  so users of the old import path see a different API.

Fix: let the builder generate it, or re-export exactly the top-level names:
    # build/<variant>/relu/__init__.py
    from .. import *            # or the builder's importlib shim
    __all__ = ["relu", "layers"]  # same as build/<variant>/__init__.py
)",
                 R"ex(# build/<variant>/__init__.py:       __all__ = ["relu", "layers"]
# build/<variant>/relu/__init__.py:  __all__ = ["relu"])ex",
                 R"ex(# build/<variant>/relu/__init__.py
from .. import *
__all__ = ["relu", "layers"]  # same as build/<variant>/__init__.py)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_kl004_compatibility_package() { return std::make_unique<CompatibilityPackage>(); }

}  // namespace kcheck
