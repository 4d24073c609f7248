#include <map>
#include <set>

#include "checker/facts/tree_facts.h"
#include "checker/kinds/variant_name.h"
#include "checker/namespace/rules/namespace_rule_table.h"
#include "checker/namespace/rules/op_registration_calls.h"
#include "checker/python/python_name_resolution.h"
#include "checker/python/rules/python_rule_support.h"

namespace kcheck {
namespace {

// In a Python-only variant (torch-<backend>: no native module), the ops the
// package calls through `ops` from `._ops` exist only if its Python registers
// them. Judged conservatively: a variant whose Python registers any op at all
// (custom_op, triton_op, torch.library, a Library's define/impl) is not judged,
// as its names are not always literal.
class OpCalledButNeverRegistered final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!variant.name || variant.name->kind != VariantKind::python_only || !variant.native_modules.empty()) continue;
      if (registers_an_op(variant)) continue;
      for (const PythonFileFacts& file : variant.python_files) {
        if (!file.parsed) continue;
        const std::set<std::string> ops_names = names_bound_to_ops(file);
        std::set<std::string> reported;
        for (const PythonCall& call : file.calls) {
          const std::size_t dot = call.callee.find('.');
          if (dot == std::string::npos || !ops_names.contains(call.callee.substr(0, dot))) continue;
          const std::string op = call.callee.substr(dot + 1, call.callee.find('.', dot + 1) - dot - 1);
          if (!reported.insert(op).second) continue;
          sink.report(python_place(variant, file, call.line),
                      "`" + call.callee + "(...)` calls the op `" + op + "`, which nothing in " +
                          variant.directory_name +
                          " registers: a Python-only variant has no native module, and its Python registers no "
                          "op, so the import works and the call fails. In a [torch] kernel this is a backend listed "
                          "in general.backends with no [kernel.*] component: add one for `" +
                          variant.name->backend + "` or drop it from backends");
        }
      }
    }
  }

 private:
  // The names `from ._ops import ops [as x]` binds in the file.
  static std::set<std::string> names_bound_to_ops(const PythonFileFacts& file) {
    std::set<std::string> names;
    for (const PythonImport& import : file.imports) {
      if (!import.is_from || import.level != 1 || import.module != "_ops") continue;
      for (std::size_t i = 0; i < import.names.size() && i < import.bound_names.size(); ++i)
        if (import.names[i] == "ops") names.insert(import.bound_names[i]);
    }
    return names;
  }

  static bool registers_an_op(const VariantFacts& variant) {
    for (const PythonFileFacts& file : variant.python_files) {
      const auto targets = imported_name_targets(file);
      for (const PythonCall& call : file.calls) {
        const std::string qualified = qualified_callee(targets, call.callee);
        if (is_op_registration(qualified) || qualified.ends_with(".define") || qualified.ends_with(".impl"))
          return true;
      }
    }
    return false;
  }

  RuleInfo info_{"KO007",
                 "A Python-only variant calls an op that nothing registers",
                 Severity::error,
                 R"(Flags a call `ops.<name>(...)`, with `ops` imported from the variant's
`_ops`, in a Python-only variant (`torch-<backend>`, no native module) whose
Python registers no op at all (no custom_op, triton_op, torch.library
function, or a Library's define/impl).

Why: `ops` is the variant's op namespace under `torch.ops`. Only a native
module or the package's own Python registers ops in it, so here the kernel
imports cleanly and every such call fails (`'_OpNamespace' object has no
attribute ...`). It happens when a `[torch]` kernel lists a backend in
`general.backends` without any `[kernel.*]` component for it: builders then
write a Python-only variant for that backend holding the package alone
(huggingface/kernels' relu-torch-stable-abi example, with its metal component
commented out).

Fix: add a `[kernel.*]` component for the backend, or remove the backend from
`general.backends`; a pure-Python kernel registers its ops in Python
(`torch.library.custom_op(add_op_namespace_prefix("relu"), ...)`).)",
                 R"(# build/torch-metal/__init__.py (no native module)
from ._ops import ops
def relu(x, out):
    ops.relu(out, x))",
                 R"(# build/torch-metal/__init__.py
from ._ops import ops, add_op_namespace_prefix
@torch.library.custom_op(add_op_namespace_prefix("relu"), mutates_args=())
def relu(x): ...)",
                 0,
                 RuleNeeds::build};
};

}  // namespace

std::unique_ptr<Rule> make_ko007_op_called_but_never_registered() {
  return std::make_unique<OpCalledButNeverRegistered>();
}

}  // namespace kcheck
