// The ELF reader and every fact it derives (identity, segments, dynamic
// section, symbols and versions, Torch registrations, build leaks, device
// code), then the KE rules on those facts; and the version-definition reader
// the builder uses on system libraries. The fat binary walkers also get the
// raw bytes, so that their inputs (entry and bundle headers, arch lists up
// to and past kMaxDeviceCodeArchs) need no ELF around them to be searched,
// and the CUDA walk is also taken in steps at limits the input chooses (as
// the pieced scan takes it) and must agree with one walk. The compressed
// entries the walk lists are decompressed as KE012 decompresses them, and
// the input itself as one zstd frame and one LZ4 block of a size its first
// bytes declare (issue #32): what comes out never passes the declared size.
#include <span>
#include <string_view>

#include "checker/elf/elf_device_code.h"
#include "checker/elf/fatbin_decompression.h"
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
  CompressedFatbinPayloads compressed;
  {
    CudaFatbinWalk walk(bytes, in_steps);
    walk.list_compressed_payloads(compressed);
    for (std::size_t limit = 0; limit < size; limit += 1 + std::size_t{data[limit]} * 8) walk.walk_until(limit);
    walk.walk_until(size);
  }
  if (in_steps.cuda_sass_archs != device_code.cuda_sass_archs ||
      in_steps.cuda_ptx_archs != device_code.cuda_ptx_archs || in_steps.error != device_code.error)
    __builtin_trap();

  FatbinPayloadDecompressor decompressor;
  const auto decompress = [&](const CompressedFatbinPayload& payload, std::span<const std::byte> compressed) {
    std::uint64_t produced = 0;
    const std::string why =
        decompressor.decompress(payload, compressed, [&](std::string_view chunk) { produced += chunk.size(); });
    // One byte past the declared size at most (how "more than declared"
    // is found), and all of it when it says it decompressed.
    if (produced > payload.decompressed_size + 1 || (why.empty() && produced != payload.decompressed_size))
      __builtin_trap();
  };
  // The compressed entries the stepped walk listed, within KE012's bound.
  std::uint64_t left = kMaxDecompressionRatio * size;
  for (const CompressedFatbinPayload& payload : compressed.listed) {
    if (payload.decompressed_size > left) break;
    left -= payload.decompressed_size;
    if (payload.offset > size || payload.size > size - payload.offset) __builtin_trap();
    decompress(payload, bytes.subspan(payload.offset, payload.size));
  }
  const std::uint64_t declared = size >= 2 ? (std::uint64_t{data[0]} << 8 | data[1]) * 64 : 0;
  for (const auto method : {CompressedFatbinPayload::Method::zstd, CompressedFatbinPayload::Method::lz4})
    decompress({0, size, declared, method}, bytes);
  return 0;
}
