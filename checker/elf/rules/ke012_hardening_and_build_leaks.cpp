#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

class HardeningAndBuildLeaks final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for_each_elf_module(context.tree, [&](const NativeModuleView& view, const ElfFacts& elf) {
      if (!elf.has_relro || !elf.bind_now) {
        const std::string missing = !elf.has_relro && !elf.bind_now ? "no PT_GNU_RELRO and no BIND_NOW"
                                    : !elf.has_relro                ? "no PT_GNU_RELRO"
                                                                    : "no BIND_NOW (partial RELRO only)";
        sink.report(Severity::note, view.place(),
                    missing + ": the GOT stays writable after loading; full RELRO needs -Wl,-z,relro,-z,now");
      }
      if (elf.has_debug_sections) {
        sink.report(Severity::warning, view.place(elf.debug_section_names.front()),
                    "ships debug sections (" + join_first(elf.debug_section_names, 4) +
                        "): they enlarge the download and describe the builder's sources");
      }
      if (!elf.leaked_build_paths.empty()) {
        sink.report(Severity::warning, view.place(elf.leaked_build_paths.front()),
                    "leaks paths of the build machine: " + join_first(elf.leaked_build_paths, 3));
      }
      if (!elf.read_only_data_build_paths.empty()) {
        sink.report(Severity::warning, view.place(elf.read_only_data_build_paths.front()),
                    "embeds source paths of the build machine as strings in read-only data (e.g. from __FILE__): " +
                        join_first(elf.read_only_data_build_paths, 3));
      }
      if (!elf.device_code_build_paths.empty()) {
        sink.report(Severity::warning, view.place(elf.device_code_build_paths.front()),
                    "embeds source paths of the build machine in its device code (the line tables of nvcc's "
                    "-lineinfo or -G, which -ffile-prefix-map does not reach): " +
                        join_first(elf.device_code_build_paths, 3));
      }
      if (elf.unsearched_device_code_entries > 0) {
        sink.report(Severity::warning, view.place(elf.unsearched_device_code_section),
                    std::to_string(elf.unsearched_device_code_entries) +
                        (elf.unsearched_device_code_entries == 1 ? " compressed entry of its device code was"
                                                                 : " compressed entries of its device code were") +
                        " not searched for build paths; the first: " + elf.unsearched_device_code_reason);
      }
      if (!elf.device_code_walk_stopped.empty()) {
        // Every byte was searched as it is; only a compressed entry past
        // where the walk stopped would have been missed: a warning when
        // zstd frames lie there, a note otherwise.
        sink.report(
            elf.device_code_walk_stopped_before_zstd ? Severity::warning : Severity::note,
            view.place(elf.device_code_walk_stopped_section),
            "its device code (" + elf.device_code_walk_stopped_section +
                ") was searched for build paths byte by byte, not entry by entry: " + elf.device_code_walk_stopped +
                (elf.device_code_walk_stopped_before_zstd
                     ? "; zstd frames lie past that point, so a compressed entry may have gone unsearched"
                     : ""));
      }
    });
  }

 private:
  RuleInfo info_{"KE012",
                 "Missing full RELRO/BIND_NOW (note); debug sections or leaked build paths",
                 Severity::warning,
                 R"(Hygiene of a shipped binary. Full RELRO (PT_GNU_RELRO plus BIND_NOW)
makes the loader resolve every symbol at load time and then seal the GOT
read-only; without it a memory-safety bug in a kernel can redirect calls
through the writable GOT, and missing symbols only show up at the first call
instead of at import. That is reported as a note. Debug sections (.debug_*)
and absolute paths of the build machine (/home/<user>/..., /nix/store/...,
in .comment or the DWARF string tables, or source paths that __FILE__ left
among the strings of .rodata, as in assert messages, or in the device code
of .nv_fatbin, where nvcc's -lineinfo and -G put line tables naming each
source) enlarge the download and leak the builder's file system: a warning.
.rodata and the device code are read only when KE012 is selected. Device
code that nvcc compressed (PTX by default since CUDA 13, cubins too with
--compress-mode=size or -Xfatbin -compress-all, and -rdc's relocatable code
in __nv_relfatbin) is searched in what it decompresses to (zstd, LZ4).
What kcheck could not decompress (an entry that is not what its header
says, a compressed HIP offload bundle), or past its bound (64 times the
size of the fat binary, 4 GiB at most), is a warning of its own: it was not
searched, and the audit does not pass it over silently. A fat binary whose
headers cannot be walked to its end (KE014 names where) is searched byte
by byte from there, with a note, or a warning when zstd frames lie past
that point.

Fix: remove what the finding names (each remedy below). Link with
-Wl,-z,relro,-z,now; strip the module (`strip --strip-debug`,
or CMake's RelWithDebInfo with a separate debug file) and build with
-ffile-prefix-map=$PWD=. so no absolute path remains. -ffile-prefix-map does
not reach nvcc's line tables: compile from paths that are not the machine's
(`kcheck build` gives nvcc /proc/self/cwd/kernel-src/..., a link in the build
directory), or drop -lineinfo from a release build. Device code kcheck could
not search: read it with `cuobjdump -ptx -elf`, or rebuild it without
compression (nvcc --compress-mode=none; hipcc without --offload-compress).
)",
                 R"ex(gcc -g -shared -fPIC /home/alice/k/k.c -o _k.abi3.so   # .debug_info, /home/alice/k)ex",
                 R"ex(gcc -shared -fPIC -ffile-prefix-map=/home/alice/k=. -Wl,-z,relro,-z,now k.c -o _k.abi3.so
strip --strip-debug _k.abi3.so)ex",
                 4.0,
                 RuleNeeds::build,
                 OptionalFact::build_leaks | OptionalFact::read_only_data};
};

}  // namespace

std::unique_ptr<Rule> make_ke012_hardening_and_build_leaks() { return std::make_unique<HardeningAndBuildLeaks>(); }

}  // namespace kcheck
