#include "checker/config/rules/config_rule_table.h"
#include "checker/config/rules/config_rule_support.h"

namespace kcheck {
namespace {

class PythonPackageMissing final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const BuildConfigFacts* config = judgeable_build_config(context.tree);
    if (!config || !config->python_package) return;
    const PythonPackageFacts& package = *config->python_package;
    Place place = config_place(*config, config->general.name->position);
    if (!package.init_exists)
      sink.report(place, package.directory + "/__init__.py is missing: general.name \"" + config->general.name->value +
                             "\" makes the Python module `" + package.module + "`, whose package must be there");
    if (package.nested_module_exists)
      sink.report(place, package.directory + "/" + package.module +
                             " exists: the builder's layout check rejects a module directory nested in itself");
  }

 private:
  RuleInfo info_{"KC004",
                 "The Python package for the declared kernel name is missing",
                 Severity::error,
                 R"(The kernel's Python module is `general.name` with every '-' replaced by
'_' (`fused-rope` -> `fused_rope`). The builder packages
`torch-ext/<module>/` (`tvm-ffi-ext/<module>/` for [tvm-ffi]) into every
variant and its layout check fails when `__init__.py` is not there, or when
`torch-ext/<module>/<module>` exists (a package nested in itself, usually
left over from an old layout).

Fix: put the package at torch-ext/<module>/__init__.py, or change
general.name to match the package; remove the nested directory.
)",
                 R"ex([general]
name = "fused-rope"        # expects torch-ext/fused_rope/__init__.py
# the tree has torch-ext/fused-rope/__init__.py)ex",
                 R"ex(git mv torch-ext/fused-rope torch-ext/fused_rope
# torch-ext/fused_rope/__init__.py now matches name = "fused-rope")ex",
                 0,
                 RuleNeeds::source};
};

}  // namespace

std::unique_ptr<Rule> make_kc004_python_package_missing() { return std::make_unique<PythonPackageMissing>(); }

}  // namespace kcheck
