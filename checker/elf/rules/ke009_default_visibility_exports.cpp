#include <array>

#include "checker/support/demangle.h"
#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

// Symbols the linker defines in every shared object (older binutils export them).
constexpr std::array<std::string_view, 7> kLinkerDefinedSymbols = {"_init",       "_fini",  "_edata",      "_end",
                                                                   "__bss_start", "_etext", "__data_start"};

bool is_interface_symbol(std::string_view name) {
  return name.starts_with("PyInit_") ||
         std::find(kLinkerDefinedSymbols.begin(), kLinkerDefinedSymbols.end(), name) != kLinkerDefinedSymbols.end();
}

std::vector<std::string> shared_exports(const NativeModuleView& view) {
  std::vector<std::string> names;
  if (const ElfFacts* elf = view.elf()) {
    for (const ElfExportedSymbol& symbol : elf->exports) {
      const bool visible = symbol.visibility == SymbolVisibility::default_visibility ||
                           symbol.visibility == SymbolVisibility::protected_visibility;
      if (visible && !is_interface_symbol(symbol.name)) names.push_back(symbol.name);
    }
  } else if (const MachOFacts* macho = view.macho()) {
    for (const std::string& name : macho->exported_symbols) {
      if (!is_interface_symbol(name)) names.push_back(name);
    }
  }
  return names;
}

class DefaultVisibilityExports final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    constexpr std::size_t kShown = 5;
    for_each_native_module(context.tree, [&](const NativeModuleView& view) {
      if (view.variant_is(VariantKind::tvm_ffi) || view.is_program()) return;  // its exports are its interface
      const std::vector<std::string> exports = shared_exports(view);
      if (exports.empty()) return;
      std::vector<std::string> shown;
      for (std::size_t index = 0; index < exports.size() && index < kShown; ++index)
        shown.push_back(demangle_symbol(exports[index]));
      if (exports.size() > kShown) shown.emplace_back("...");
      const std::string count = exports.size() == 1 ? "1 symbol besides PyInit_* is"
                                                    : std::to_string(exports.size()) + " symbols besides PyInit_* are";
      sink.report(view.place(exports.front()),
                  count + " exported with default visibility: " + join_first(shown, kShown + 1));
    });
  }

 private:
  RuleInfo info_{"KE009",
                 "Symbols besides PyInit_* exported with default visibility",
                 Severity::warning,
                 R"(Several kernels, Torch and its extensions share one process. Every symbol
a module exports with default visibility (C++ functions, globals, template
instantiations, vtables, typeinfo) takes part in global symbol resolution:
two kernels that both contain, say, an inline `cutlass::` helper or a
static-library copy of a dependency bind to each other's copies, and a
version difference between them becomes memory corruption. A kernel needs to
export only PyInit_<id>. The finding gives the count and the first names.

Fix: compile with -fvisibility=hidden -fvisibility-inlines-hidden (the
builder's CMake does), link static dependencies with
-Wl,--exclude-libs,ALL, or use a version script exporting only PyInit_*.
)",
                 R"ex(void scale(float* x, int n) { ... }   // exported as scale(float*, int))ex",
                 R"ex(// -fvisibility=hidden, plus a version script exporting PyInit_* only
static void scale(float* x, int n) { ... })ex"};
};

}  // namespace

std::unique_ptr<Rule> make_ke009_default_visibility_exports() { return std::make_unique<DefaultVisibilityExports>(); }

}  // namespace kcheck
