#include <algorithm>

#include "checker/core/policy.h"
#include "checker/facts/kernel_identity.h"
#include "checker/python/rules/python_rule_table.h"
#include "checker/python/rules/python_rule_support.h"

namespace kcheck {
namespace {

class PublicApiAll final : public PerPythonFileRule {
 public:
  const RuleInfo& info() const override { return info_; }

 private:
  void check_file(const VariantFacts& variant, const PythonFileFacts& file, const RuleContext& context,
                  FindingSink& sink) const override {
    if (file.relative_path != package_init(variant, context.policy)) return;
    if (!file.defines_all) {
      sink.report(python_place(variant, file, 0),
                  "the package's " + file.relative_path +
                      " does not define `__all__`, so the kernel's public API is undefined; list the exported names");
      return;
    }
    if (!file.all_names || file.has_star_import) return;  // names not knowable statically
    for (const std::string& name : *file.all_names) {
      if (is_defined(variant, file, name)) continue;
      sink.report(python_place(variant, file, file.all_line),
                  "`__all__` names `" + name + "`, which " + file.relative_path +
                      " neither defines nor imports and which is no submodule of the package");
    }
  }

  // The file whose __all__ is the public API: `__init__.py` at the variant
  // root, or `<module>/__init__.py` under the nested (legacy) layout.
  static std::string package_init(const VariantFacts& variant, const Policy& policy) {
    if (policy.package_layout == PackageLayout::nested) {
      if (auto module = kernel_module_name(variant)) return *module + "/__init__.py";
    }
    return "__init__.py";
  }

  static bool is_defined(const VariantFacts& variant, const PythonFileFacts& file, const std::string& name) {
    const auto& names = file.top_level_names;
    if (std::find(names.begin(), names.end(), name) != names.end()) return true;
    // `from package import *` imports submodules listed in __all__.
    const std::string directory = file.relative_path.substr(0, file.relative_path.rfind('/') + 1);
    return variant.find_file(directory + name + ".py") || variant.find_file(directory + name + "/__init__.py");
  }

  RuleInfo info_{"KP004",
                 "Top-level __init__.py without __all__, or __all__ naming something undefined",
                 Severity::warning,
                 R"doc(Flags a package `__init__.py` (the variant root's; `<module>/__init__.py`
under the legacy nested layout) that does not assign `__all__`, and each name
in a literal `__all__` that the file neither defines (def, class, assignment)
nor imports, and that is not a submodule of the package. When the file does
`from x import *` or builds `__all__` dynamically, names are not judged.

Why: the Hub's public API of a kernel is the names in `__all__`; tools list
and document exactly those, and `from kernel import *` fails with an
AttributeError on a name that does not exist.

Fix: define `__all__` as a literal list of the exported names, and keep it in
sync with the definitions.
)doc",
                 R"ex(from ._ops import ops
def relu(x): ...
__all__ = ["relu", "gelu"]     # gelu is not defined)ex",
                 R"ex(from ._ops import ops
def relu(x): ...
__all__ = ["relu"])ex",
                 0,
                 RuleNeeds::source};
};

}  // namespace

std::unique_ptr<Rule> make_kp004_public_api_all() { return std::make_unique<PublicApiAll>(); }

}  // namespace kcheck
