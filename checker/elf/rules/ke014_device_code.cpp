#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

std::string describe(const DeviceCodeFacts& device_code) {
  std::vector<std::string> parts;
  if (!device_code.cuda_sass_archs.empty()) parts.push_back("CUDA SASS " + join_first(device_code.cuda_sass_archs, 64));
  if (!device_code.cuda_ptx_archs.empty()) parts.push_back("PTX " + join_first(device_code.cuda_ptx_archs, 64));
  if (!device_code.hip_targets.empty()) parts.push_back("HIP " + join_first(device_code.hip_targets, 64));
  if (!device_code.error.empty()) parts.push_back("unreadable part: " + device_code.error);
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : "; ") + part;
  return text.empty() ? "a fat binary section without device code" : text;
}

class DeviceCode final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for_each_elf_module(context.tree, [&](const NativeModuleView& view, const ElfFacts& elf) {
      if (elf.device_code) sink.report(view.place(), "embedded device code: " + describe(*elf.device_code));
    });
  }

 private:
  RuleInfo info_{"KE014",
                 "Embedded device code (CUDA SASS/PTX archs, HIP targets)",
                 Severity::note,
                 R"(Lists the GPU code a module carries: for CUDA the SASS (cubin) archs
and the PTX versions in .nv_fatbin, for ROCm the gfx targets of the code
objects in .hip_fatbin. A GPU runs the module only if its arch has SASS
built for it (or a family/PTX fallback it can JIT from); KM010 compares this
list with metadata.json backend.archs. This is information, not a fault.

To change it: set cuda-capabilities / rocm-archs in build.toml.
)",
                 R"ex(# a note, not a fault: the module's device code
embedded device code: CUDA SASS sm_80, sm_90a; PTX compute_90)ex",
                 R"ex(# build.toml, to embed other archs
[kernel.relu]
cuda-capabilities = ["8.0", "9.0a", "10.0"])ex",
                 0,
                 RuleNeeds::build,
                 OptionalFact::device_code};
};

}  // namespace

std::unique_ptr<Rule> make_ke014_device_code() { return std::make_unique<DeviceCode>(); }

}  // namespace kcheck
