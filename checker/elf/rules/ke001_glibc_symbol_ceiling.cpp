#include "checker/elf/rules/elf_rule_support.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

class GlibcSymbolCeiling final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  // glibc's version family only; KE002 judges the others.
  void check(const RuleContext& context, FindingSink& sink) const override {
    report_symbol_ceiling_violations(context, sink, [](std::string_view family) { return family == "GLIBC"; });
  }

 private:
  RuleInfo info_{"KE001",
                 "Imported symbol needs a newer glibc than the policy allows",
                 Severity::error,
                 R"(Every symbol a native module imports from glibc carries a version node
(memcpy@GLIBC_2.14, fcntl64@GLIBC_2.29). The dynamic loader refuses to load
the module on a system whose glibc is older than the newest node it needs.
The policy fixes the oldest glibc a kernel must run on (`hub`: manylinux_2_28,
GLIBC 2.28; `hub-legacy`: 2.27); each import above that ceiling is reported
with its version and the library it comes from. Named nodes such as
GLIBC_PRIVATE are never allowed. The loader checks every non-weak entry of
.gnu.version_r, not only those a symbol refers to: linking with
`-z pack-relative-relocs` adds GLIBC_ABI_DT_RELR, which glibc 2.36
introduced, so the module is refused below glibc 2.36 although no import
needs a new symbol; such a version need is reported with its library.

Fix: build in the policy's manylinux container (or against an old enough
sysroot), so the linker binds the old symbol versions; or avoid the function
that only newer glibc provides; drop `-z pack-relative-relocs`.
)",
                 R"ex(// built on glibc 2.36
double f(double x) { return exp(x); }   // imports exp@GLIBC_2.29)ex",
                 R"ex(# build in the policy's manylinux_2_28 container (or `kcheck build`,
# which pins exp to exp@GLIBC_2.2.5)
double f(double x) { return exp(x); }   // imports exp@GLIBC_2.2.5)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_ke001_glibc_symbol_ceiling() { return std::make_unique<GlibcSymbolCeiling>(); }

}  // namespace kcheck
