#include "checker/harness/rules/harness_rule_support.h"
#include "checker/harness/rules/harness_rule_table.h"

namespace kcheck {
namespace {

class PythonImportFails final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!was_run(variant)) continue;
      const auto& python_import = variant.harness->python_import;
      if (!python_import || !python_import->skipped_because.empty() || python_import->imported) continue;
      sink.report({.variant = variant.directory_name, .file = variant.report_path("__init__.py")},
                  "importing the variant package with " + python_import->python +
                      " fails while its native module "
                      "loads: " +
                      python_import->error);
    }
  }

 private:
  RuleInfo info_{"KD006",
                 "The Python import of the variant fails while the native load succeeds",
                 Severity::warning,
                 R"(Once the native module has loaded in kcheck_worker, `kcheck run` imports
the variant directory as a package the way the Hub loader does
(importlib with a unique module name, `__init__.py` first), in a Python
whose Torch matches the variant (`--python`, by default the repository's
venv). This rule flags an import that raises: a missing Python dependency,
an absolute import of the package's own modules, a syntax error, or code at
import time that fails. Users of `kernels.get_kernel` see that error.

Fix: run `python -c "import importlib.util ..."` as in the message, use
relative imports inside the package, and declare Python dependencies in
metadata.json's python-depends.
)",
                 R"ex(# build/<variant>/__init__.py
from activation._ops import ops      # absolute: not importable under the loader's name)ex",
                 R"ex(# build/<variant>/__init__.py
from ._ops import ops)ex",
                 0,
                 RuleNeeds::kernel_run,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_kd006_python_import_fails() { return std::make_unique<PythonImportFails>(); }

}  // namespace kcheck
