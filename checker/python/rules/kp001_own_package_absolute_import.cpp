#include "checker/facts/kernel_identity.h"
#include "checker/python/rules/python_rule_table.h"
#include "checker/python/rules/python_rule_support.h"

namespace kcheck {
namespace {

class OwnPackageAbsoluteImport final : public PerPythonFileRule {
 public:
  const RuleInfo& info() const override { return info_; }

 private:
  void check_file(const VariantFacts& variant, const PythonFileFacts& file, const RuleContext&,
                  FindingSink& sink) const override {
    const std::optional<std::string> module = kernel_module_name(variant);
    const std::optional<std::string> id = variant_kernel_id(variant);
    for (const PythonImport& import : file.imports) {
      if (import.level != 0) continue;
      const std::string top = top_level_module(import.module);
      if (top != module && top != id) continue;
      sink.report(python_place(variant, file, import.line),
                  "`" + import_statement_text(import) + "` imports the kernel's own package `" + top +
                      "` by name; the loader imports the package under its unique id, so this finds another copy "
                      "or nothing: import relatively (`" +
                      relative_form(import) + "`)");
    }
  }

  static std::string relative_form(const PythonImport& import) {
    const std::size_t dot = import.module.find('.');
    const std::string rest = dot == std::string::npos ? "" : import.module.substr(dot + 1);
    if (import.is_from) return "from ." + rest + " import " + (import.names.empty() ? "..." : import.names.front());
    return rest.empty() ? "from . import ..." : "from . import " + rest.substr(0, rest.find('.'));
  }

  RuleInfo info_{"KP001",
                 "Absolute import of the kernel's own package",
                 Severity::error,
                 R"doc(Flags `import <kernel>` and `from <kernel>.x import y` (level-0 imports whose
first component is the kernel's module name, metadata `name` with '-' -> '_',
or its id) in any Python file of a variant.

Why: the Hub loader imports each variant's package under its unique id
(e.g. `_relu_cuda_0a1b2c3`), not under the kernel's name, so that two
revisions can live in one process. An absolute import by name either fails or
silently loads a different copy of the kernel (an installed one, another
revision).

Fix: import the kernel's own modules relatively.
)doc",
                 R"ex(# build/<variant>/layers.py
from relu.ops import fused_relu)ex",
                 R"ex(# build/<variant>/layers.py
from .ops import fused_relu)ex",
                 0,
                 RuleNeeds::source,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_kp001_own_package_absolute_import() { return std::make_unique<OwnPackageAbsoluteImport>(); }

}  // namespace kcheck
