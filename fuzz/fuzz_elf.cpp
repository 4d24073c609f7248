// The ELF reader and every fact it derives (identity, segments, dynamic
// section, symbols and versions, Torch registrations, build leaks, device
// code), then the KE rules on those facts; and the version-definition reader
// the builder uses on system libraries. The fat binary walkers also get the
// raw bytes, so that their inputs (entry and bundle headers, arch lists up
// to and past kMaxDeviceCodeArchs) need no ELF around them to be searched,
// and the CUDA walk is also taken in steps at limits the input chooses (as
// the pieced scan takes it) and must agree with one walk.
#include <span>

#include "checker/elf/elf_device_code.h"
#include "checker/kinds/elf_facts.h"
#include "checker/elf/rules/elf_rule_table.h"
#include "checker/elf/elf_version_definitions.h"
#include "fuzz/fuzz_support.h"

using namespace kcheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Policy policy = load_policy("hub");
  static const RuleRegistry rules = [] {
    RuleRegistry registry;
    add_rules(registry, kElfRules);
    return registry;
  }();
  const fuzz::MemoryFile file(data, size);
  TreeFacts tree;
  tree.scope = AuditScope::variant;
  VariantFacts& variant = tree.variants.emplace_back();
  variant.directory_name = "torch211-cxx11-cpu-x86_64-linux";
  variant.name = parse_variant_name(variant.directory_name);
  NativeModuleFacts& module = variant.native_modules.emplace_back();
  module.relative_path = "_fuzz_cpu_0123456.abi3.so";
  module.elf = read_elf_facts(file.path());
  fuzz::run_rules(rules, tree, policy, false);
  read_version_definitions(file.path());
  const auto bytes = std::as_bytes(std::span(data, size));
  DeviceCodeFacts device_code;
  read_cuda_fatbin(bytes, device_code);
  DeviceCodeFacts with_hip = device_code;
  read_hip_fatbin(bytes, with_hip);
  // The resumable walk (KE014's, inside KE012's pieced scan: issue #32),
  // stopped at limits the input chooses, must find what one walk finds.
  DeviceCodeFacts in_steps;
  {
    CudaFatbinWalk walk(bytes, in_steps);
    for (std::size_t limit = 0; limit < size; limit += 1 + std::size_t{data[limit]} * 8) walk.walk_until(limit);
    walk.walk_until(size);
  }
  if (in_steps.cuda_sass_archs != device_code.cuda_sass_archs ||
      in_steps.cuda_ptx_archs != device_code.cuda_ptx_archs || in_steps.error != device_code.error)
    __builtin_trap();
  return 0;
}
