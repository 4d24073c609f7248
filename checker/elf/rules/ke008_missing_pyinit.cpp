#include <algorithm>

#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

bool exports_symbol(const NativeModuleView& view, const std::string& wanted) {
  if (const ElfFacts* elf = view.elf()) {
    return std::any_of(elf->exports.begin(), elf->exports.end(), [&](const ElfExportedSymbol& symbol) {
      return symbol.name == wanted && symbol.visibility != SymbolVisibility::hidden;
    });
  }
  const MachOFacts* macho = view.macho();
  return macho != nullptr && std::find(macho->exported_symbols.begin(), macho->exported_symbols.end(), wanted) !=
                                 macho->exported_symbols.end();
}

class MissingPyInit final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for_each_native_module(context.tree, [&](const NativeModuleView& view) {
      if (view.variant_is(VariantKind::tvm_ffi) || (!view.elf() && !view.macho()))
        return;  // KE007 reports unreadable files
      if (view.is_program()) {
        sink.report(Severity::note, view.place(),
                    "is a program (it names a program interpreter), not a Python extension module: the module "
                    "rules KE005, KE008 and KE009 do not apply to it");
        return;
      }
      const std::string init = "PyInit_" + std::string(view.python_module_name());
      if (exports_symbol(view, init)) return;
      sink.report(view.place(init), "does not export " + init + ": `import " + std::string(view.python_module_name()) +
                                        "` fails with \"dynamic module does not define module export function\"");
    });
  }

 private:
  RuleInfo info_{"KE008",
                 "No PyInit_<module> export matching the file name",
                 Severity::error,
                 R"(Python imports `<name>.abi3.so` by calling its exported function
`PyInit_<name>`, where <name> is the file name up to the first dot. The
builder names the module after the variant id and defines PyInit_<id> through
TORCH_EXTENSION_NAME; a module renamed after the build, built with another
TORCH_EXTENSION_NAME, or with the init function hidden exports no matching
symbol and its import fails.

Fix: keep the file name and TORCH_EXTENSION_NAME equal to metadata.json `id`
(rebuild instead of renaming), and keep PyInit_<id> visible (PyMODINIT_FUNC
does that even under -fvisibility=hidden).
)",
                 R"ex(_relu_cuda_1a2b3c4.abi3.so exports PyInit__relu_cuda_0000000)ex",
                 R"ex(# rebuild so that the module name and the file name share the id
_relu_cuda_1a2b3c4.abi3.so exports PyInit__relu_cuda_1a2b3c4)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_ke008_missing_pyinit() { return std::make_unique<MissingPyInit>(); }

}  // namespace kcheck
