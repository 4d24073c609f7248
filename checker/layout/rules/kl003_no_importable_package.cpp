#include "checker/facts/kernel_identity.h"
#include "checker/core/policy.h"
#include "checker/facts/tree_facts.h"
#include "checker/layout/rules/layout_rule_table.h"

namespace kcheck {
namespace {

class NoImportablePackage final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    if (context.tree.scope == AuditScope::module) return;
    for (const VariantFacts& variant : context.tree.variants) {
      if (!variant.listed) continue;  // KL007 says it cannot be read
      Place where{.variant = variant.directory_name, .file = variant.relative_path};
      if (context.policy.package_layout == PackageLayout::top_level) {
        if (!variant.find_file("__init__.py"))
          sink.report(where, "variant has no top-level __init__.py: the loader imports <variant>/__init__.py");
        continue;
      }
      auto module = kernel_module_name(variant);
      if (!module) {
        sink.report(where,
                    "cannot tell the kernel's package name (no metadata name or id, no native module or "
                    "package directory naming it), so "
                    "the nested package <module>/__init__.py that policy '" +
                        context.policy.name + "' requires cannot be found");
      } else if (!variant.find_file(*module + "/__init__.py")) {
        sink.report(where, "variant has no " + *module + "/__init__.py: policy '" + context.policy.name +
                               "' requires the nested package named after the kernel");
      }
    }
  }

 private:
  RuleInfo info_{"KL003",
                 "Variant has no importable package",
                 Severity::error,
                 R"(The loader imports a variant as a Python package. Under the current Hub
layout (policy `hub`) that is the variant directory itself, so it needs a
top-level __init__.py. Under the seeds' layout (policy `hub-legacy`) the
package is a directory named after the kernel (`-` replaced by `_`) inside the
variant: build/<variant>/<module>/__init__.py. The name comes from
metadata.json (`name`, else `id`); legacy variants without it are named by
their files: the directory holding the native module, the package whose name
prefixes a root native module's (`_<module>_<unique>`), or the only package.

Fix: ship the package's __init__.py where the policy expects it; kernel-builder
and `kcheck build` copy torch-ext/<module>/ there.
)",
                 R"ex(# policy hub
build/torch213-cxx11-cpu-x86_64-linux/
  _ops.py
  _relu_cpu_0a1b2c3.abi3.so         # no __init__.py)ex",
                 R"ex(build/torch213-cxx11-cpu-x86_64-linux/
  __init__.py                       # from torch-ext/relu/__init__.py
  _ops.py
  _relu_cpu_0a1b2c3.abi3.so)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_kl003_no_importable_package() { return std::make_unique<NoImportablePackage>(); }

}  // namespace kcheck
