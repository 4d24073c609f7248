#include "checker/core/policy.h"
#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

bool is_cxx_runtime_version(std::string_view version) {
  return version.starts_with("GLIBCXX_") || version.starts_with("CXXABI_");
}

class DynamicCxxRuntime final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    if (context.policy.native.cxx_runtime != CxxRuntimePolicy::static_only) return;
    const std::string allowed = "policy " + context.policy.name + " requires the C++ runtime to be linked statically";
    for_each_elf_module(context.tree, [&](const NativeModuleView& view, const ElfFacts& elf) {
      for (const std::string& library : elf.needed) {
        if (is_cxx_runtime_library(library))
          sink.report(view.place(library), "needs " + library + " dynamically; " + allowed);
      }
      std::vector<std::string> references;
      for (const ElfImportedSymbol& symbol : elf.imports) {
        if (is_cxx_runtime_version(symbol.version)) references.push_back(symbol.name + "@" + symbol.version);
      }
      if (!references.empty()) {
        sink.report(view.place(references.front()), std::to_string(references.size()) +
                                                        " imports need the dynamic C++ runtime (" +
                                                        join_first(references, 3) + "); " + allowed);
      }
    });
  }

 private:
  RuleInfo info_{"KE003",
                 "Dynamic C++ runtime where the policy requires static linking",
                 Severity::error,
                 R"(Under a policy that forbids a dynamic C++ runtime (`hub-legacy`, the seed
documents), a native module must not list libstdc++.so or libc++.so in
DT_NEEDED, and must not import any symbol versioned GLIBCXX_* or CXXABI_*:
the kernel would depend on whichever C++ runtime the host process loaded
first (Torch's, Python's, another extension's). Under `hub` the dynamic
libstdc++ is allowed and KE002 caps its symbol versions instead.

Fix: link with -static-libstdc++ -static-libgcc and hide the runtime's
symbols (-Wl,--exclude-libs,ALL), then check that readelf -d shows no
libstdc++ and readelf -V no GLIBCXX_ node.
)",
                 R"ex(# policy hub-legacy
g++ -shared -fPIC kernel.cpp -o _k.abi3.so   # NEEDED libstdc++.so.6)ex",
                 R"ex(g++ -shared -fPIC -static-libstdc++ -Wl,--exclude-libs,ALL kernel.cpp -o _k.abi3.so)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_ke003_dynamic_cxx_runtime() { return std::make_unique<DynamicCxxRuntime>(); }

}  // namespace kcheck
