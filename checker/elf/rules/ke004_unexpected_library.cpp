#include <algorithm>

#include "checker/core/policy.h"
#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

class UnexpectedLibrary final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    const NativePolicy& policy = context.policy.native;
    for_each_elf_module(context.tree, [&](const NativeModuleView& view, const ElfFacts& elf) {
      for (const std::string& library : elf.needed) {
        if (allowed(library, policy)) continue;
        sink.report(view.place(library), "needs " + library +
                                             ", which is neither a Torch library nor one Torch installs as a "
                                             "dependency nor in the system libraries policy " +
                                             context.policy.name + " allows");
      }
      for (const ElfImportedSymbol& symbol : elf.imports) {
        const auto blacklist = policy.blacklisted_symbols.find(symbol.library);
        if (blacklist == policy.blacklisted_symbols.end() || !blacklist->second.contains(symbol.name)) continue;
        sink.report(view.place(symbol.name), "imports " + symbol.name + " from " + symbol.library +
                                                 ", a symbol that policy " + context.policy.name +
                                                 " blacklists for that library (not part of its stable interface)");
      }
    });
  }

 private:
  static bool allowed(const std::string& library, const NativePolicy& policy) {
    // KE003 judges the C++ runtime when the policy forbids it dynamically.
    if (is_cxx_runtime_library(library) && policy.cxx_runtime == CxxRuntimePolicy::static_only) return true;
    if (policy.system_libraries.contains(library)) return true;
    return std::any_of(policy.torch_library_patterns.begin(), policy.torch_library_patterns.end(),
                       [&](const std::string& pattern) { return glob_match(pattern, library); });
  }

  RuleInfo info_{"KE004",
                 "Dynamic dependency outside Torch, its accelerator libraries and the system whitelist",
                 Severity::error,
                 R"(A kernel is loaded into a process that already holds Torch. The only
shared libraries it may need are Torch's own (libtorch*.so, libc10*.so), the
CUDA/ROCm/XPU libraries that Torch installs as its dependencies (libcudart,
libcublas, libamdhip64, ...), and the system libraries the policy's manylinux
whitelist names (libc, libm, libgcc_s, ...). Anything else (libfoo.so.1 from
the build machine, libpython3.x.so) is missing on users' machines and the
import fails. Imports of symbols the policy blacklists for a whitelisted
library (zlib internals) are reported too.

Fix: link the dependency statically, or drop it; never bundle and RPATH a
private copy.
)",
                 R"ex(readelf -d _k.abi3.so  ->  NEEDED libopenblas.so.0)ex",
                 R"ex(# link the library statically, or use Torch's BLAS through ATen
readelf -d _k.abi3.so  ->  NEEDED libc10.so, libtorch.so, libc.so.6)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_ke004_unexpected_library() { return std::make_unique<UnexpectedLibrary>(); }

}  // namespace kcheck
