#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

class WritableExecutableMemory final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for_each_elf_module(context.tree, [&](const NativeModuleView& view, const ElfFacts& elf) {
      if (elf.executable_stack) {
        sink.report(view.place(),
                    elf.has_gnu_stack
                        ? "PT_GNU_STACK is executable (PF_X): loading the module makes every thread stack executable"
                        : "no PT_GNU_STACK header: the loader gives the process an executable stack");
      }
      if (elf.writable_and_executable_segment)
        sink.report(view.place(), "a PT_LOAD segment is both writable and executable");
      if (elf.text_relocations)
        sink.report(view.place(), "text relocations (DT_TEXTREL): the loader must write into code pages");
    });
  }

 private:
  RuleInfo info_{"KE011",
                 "Executable stack, writable+executable segment or text relocations",
                 Severity::error,
                 R"(Memory that is writable and executable at once defeats W^X, the basic
exploit mitigation. Three ways a module causes it: an executable
PT_GNU_STACK (or none at all), which makes glibc turn every thread stack of
the whole process executable (and fails outright on hardened kernels and
glibc >= 2.41); a PT_LOAD segment mapped RWX; and text relocations, which
make the loader patch code pages at load time (and fail under SELinux).
The policy allows none of them: no user should lose W^X for a kernel.

Fix: find the object that needs an executable stack (usually an assembly
file without `.section .note.GNU-stack,"",@progbits`) and link with
-Wl,-z,noexecstack; compile every object with -fPIC so no text relocations
remain; do not use -z execstack or -N.
)",
                 R"ex(gcc -shared -fPIC -Wl,-z,execstack k.c -o _k.abi3.so)ex",
                 R"ex(gcc -shared -fPIC -Wl,-z,noexecstack k.c -o _k.abi3.so)ex",
                 8.0};
};

}  // namespace

std::unique_ptr<Rule> make_ke011_writable_executable_memory() { return std::make_unique<WritableExecutableMemory>(); }

}  // namespace kcheck
