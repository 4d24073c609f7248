#include "checker/elf/rules/elf_rule_support.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

class CxxRuntimeSymbolCeiling final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  // Every capped family except glibc's (KE001): GLIBCXX, CXXABI, GCC, and
  // whatever else the policy caps (LIBATOMIC, ZLIB).
  void check(const RuleContext& context, FindingSink& sink) const override {
    report_symbol_ceiling_violations(context, sink, [](std::string_view family) { return family != "GLIBC"; });
  }

 private:
  RuleInfo info_{"KE002",
                 "Imported symbol needs a newer libstdc++/libgcc than the policy allows",
                 Severity::error,
                 R"(Imports from the C++ runtime and the compiler support library carry
version nodes too: GLIBCXX_3.4.x and CXXABI_1.3.x (libstdc++), GCC_x.y.z
(libgcc_s). A module that needs GLIBCXX_3.4.30 loads only where a libstdc++ of
GCC 12 or newer is installed. The policy caps each family (`hub`: GLIBCXX
3.4.24, CXXABI 1.3.11, GCC 7.0.0, i.e. GCC 7's runtime as in manylinux_2_28);
each import above its ceiling is reported with its version.

Fix: build with the policy's toolchain (the manylinux_2_28 devtoolset links
newer C++ features statically and keeps the dynamic references old), or link
libstdc++ statically (-static-libstdc++) with hidden visibility.
)",
                 R"ex(// g++ 12, libstdc++ linked dynamically
std::string s = std::to_string(1.5);   // needs GLIBCXX_3.4.29)ex",
                 R"ex(g++ -shared -fPIC -static-libstdc++ -Wl,--exclude-libs,ALL k.cpp -o _k.abi3.so
# no GLIBCXX/CXXABI import left)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_ke002_cxx_runtime_symbol_ceiling() { return std::make_unique<CxxRuntimeSymbolCeiling>(); }

}  // namespace kcheck
