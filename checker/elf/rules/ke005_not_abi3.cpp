#include "checker/core/policy.h"
#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

bool is_python_symbol(std::string_view name) { return name.starts_with("Py") || name.starts_with("_Py"); }

class NotAbi3 final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const PythonPolicy& python = context.policy.python;
    for_each_native_module(context.tree, [&](const NativeModuleView& view) {
      // TVM-FFI libraries are not Python extension modules.
      if (view.variant_is(VariantKind::tvm_ffi) || view.is_program()) return;  // KE008 says why for a program
      if (!view.file_name().ends_with(".abi3.so")) {
        sink.report(view.place(), "file name '" + std::string(view.file_name()) +
                                      "' is not named as an abi3 module (<id>.abi3.so): "
                                      "the kernels loader and packaging cannot tell that it is abi3");
      }
      for (const std::string_view name : imported_symbol_names(view)) {
        if (!is_python_symbol(name)) continue;
        const std::string symbol(name);
        const auto stable = python.stable_abi_symbols.find(name);
        if (stable == python.stable_abi_symbols.end()) {
          sink.report(view.place(symbol), "imports " + symbol + ", which is not part of the Python Stable ABI (abi3)");
        } else if (stable->second > python.floor) {
          sink.report(view.place(symbol), "imports " + symbol + ", added to the Stable ABI in Python " +
                                              stable->second.str() + "; policy " + context.policy.name +
                                              " requires Python " + python.floor.str());
        }
      }
    });
  }

 private:
  RuleInfo info_{"KE005",
                 "Native module is not abi3 for the policy's Python floor",
                 Severity::error,
                 R"(One build of a kernel serves every Python version from the policy's
floor (3.9) upwards. That works only for an extension built against the
Limited API: named `<id>.abi3.so`, and importing only symbols of CPython's
Stable ABI that already existed in the floor version. A `Py*`/`_Py*` import
outside the Stable ABI (PyUnicode_AsUTF8, _Py_Dealloc) ties the module to one
CPython; a Stable ABI symbol added later (PyType_GetModuleByDef, 3.13) makes
the import fail on older Pythons. Each such symbol is reported with the
version that added it.

Fix: compile with -DPy_LIMITED_API=0x03090000 (the builder does this) and
replace the calls the compiler then rejects; name the file `<id>.abi3.so`.
)",
                 R"ex(PyObject* s = PyUnicode_FromString("x");
const char* c = PyUnicode_AsUTF8(s);     // not in the Limited API before 3.10)ex",
                 R"ex(#define Py_LIMITED_API 0x03090000
PyObject* b = PyUnicode_AsUTF8String(s);  // in the Limited API since 3.2
const char* c = PyBytes_AsString(b);)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_ke005_not_abi3() { return std::make_unique<NotAbi3>(); }

}  // namespace kcheck
