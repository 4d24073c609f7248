#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

// Mach-O arch names -> the variant grammar's cpu names.
std::string variant_cpu_of_macho_arch(const std::string& arch) { return arch == "arm64" ? "aarch64" : arch; }

class WrongBinaryFormat final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for_each_native_module(context.tree, [&](const NativeModuleView& view) {
      if (view.module.elf) check_elf(view, *view.module.elf, sink);
      if (view.module.macho) check_macho(view, *view.module.macho, sink);
    });
  }

 private:
  static void check_elf(const NativeModuleView& view, const ElfFacts& elf, FindingSink& sink) {
    if (!elf.error.empty()) {
      sink.report(view.place(), "not a valid ELF shared object: " + elf.error);
      return;
    }
    if (!elf.is_shared_object()) {
      sink.report(view.place(), "ELF file of type " + std::to_string(elf.elf_type) +
                                    ", not a shared object (ET_DYN): Python cannot load it");
    }
    const VariantName* name = view.variant_name();
    if (name == nullptr) return;
    if (name->os != "linux") {
      sink.report(view.place(), "ELF module in a " + name->os + " variant, which needs a " +
                                    (name->os == "darwin" ? "Mach-O" : "PE") + " module");
      return;
    }
    if (elf.machine_name != name->cpu || elf.elf_class != 64) {
      sink.report(view.place(), "ELF machine " + elf.machine_name + " (" + std::to_string(elf.elf_class) +
                                    "-bit) does not match the variant's " + name->cpu + " (64-bit)");
    }
  }

  static void check_macho(const NativeModuleView& view, const MachOFacts& macho, FindingSink& sink) {
    if (!macho.error.empty()) {
      sink.report(view.place(), "not a valid Mach-O image: " + macho.error);
      return;
    }
    const VariantName* name = view.variant_name();
    if (name == nullptr) return;
    if (name->os != "darwin") {
      sink.report(view.place(), "Mach-O module in a " + name->os + " variant, which needs an ELF module");
    } else if (variant_cpu_of_macho_arch(macho.arch) != name->cpu) {
      sink.report(view.place(), "Mach-O arch " + macho.arch + " does not match the variant's " + name->cpu);
    }
  }

  RuleInfo info_{"KE007",
                 "Native module is not a valid shared object for the variant's arch and OS",
                 Severity::error,
                 R"(The variant name promises a system (x86_64-linux, aarch64-linux,
aarch64-darwin); its native module must be a shared object of that system:
a 64-bit ELF ET_DYN file for the named machine on Linux, a Mach-O image of
the named arch on macOS. A module cross-compiled for the wrong machine, an
executable or object file renamed to .so, or a truncated or corrupt file
(reported with the reason, e.g. the section header table ends past the end
of the file) fails to import on every user's machine. A Git LFS pointer
file (`version https://git-lfs.github.com/spec/v1`) in place of the module
is named as such: the repository was cloned without Git LFS.

Fix: rebuild the variant on (or for) the system its name states; re-upload
files that were truncated in transfer; fetch LFS objects with `git lfs pull`.
)",
                 R"ex(build/torch213-cxx11-cpu-x86_64-linux/_k_cpu_1a2b3c4.abi3.so: ELF machine aarch64)ex",
                 R"ex(# build x86_64 code for an x86_64 variant (or name the variant ...-aarch64-linux)
build/torch213-cxx11-cpu-x86_64-linux/_k_cpu_1a2b3c4.abi3.so: ELF machine x86_64)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_ke007_wrong_binary_format() { return std::make_unique<WrongBinaryFormat>(); }

}  // namespace kcheck
