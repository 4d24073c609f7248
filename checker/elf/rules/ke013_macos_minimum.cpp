#include "checker/core/policy.h"
#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

class MacosMinimum final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for_each_native_module(context.tree, [&](const NativeModuleView& view) {
      const MachOFacts* macho = view.macho();
      if (macho == nullptr) return;
      if (!macho->minimum_macos) {
        sink.report(view.place(), "no LC_BUILD_VERSION or LC_VERSION_MIN_MACOSX: the minimum macOS version is unknown");
        return;
      }
      const VariantName* name = view.variant_name();
      if (name == nullptr) return;
      const auto limit = context.policy.native.macos_minimum.find(name->backend);
      if (limit == context.policy.native.macos_minimum.end() || *macho->minimum_macos <= limit->second) return;
      sink.report(view.place(), "requires macOS " + macho->minimum_macos->str() + "; policy " + context.policy.name +
                                    " allows at most macOS " + limit->second.str() + " for " + name->backend +
                                    " variants");
    });
  }

 private:
  RuleInfo info_{"KE013",
                 "Minimum macOS version above the policy, or missing",
                 Severity::error,
                 R"(A darwin module records the oldest macOS it runs on (LC_BUILD_VERSION
minos, or LC_VERSION_MIN_MACOSX in older binaries); dyld refuses to load it
on anything older. The policy fixes the oldest macOS per backend that a
kernel must support (`hub`: 15.0 for cpu, 26.0 for metal, as the builder
targets). A higher minimum excludes supported Macs; a missing one means the
module was not linked by a normal Apple toolchain.

Fix: build with -mmacosx-version-min=<policy version> (CMake:
CMAKE_OSX_DEPLOYMENT_TARGET), as the builder does.
)",
                 R"ex(clang -target arm64-apple-macos26.2 ...   # cpu variant, policy allows 15.0)ex",
                 R"ex(clang -target arm64-apple-macos15.0 ...   # or MACOSX_DEPLOYMENT_TARGET=15.0)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_ke013_macos_minimum() { return std::make_unique<MacosMinimum>(); }

}  // namespace kcheck
