// The fat-binary readers on hand-made sections (issue #14: a 30-digit gfx
// target made std::stoul throw while targets were sorted, ending the audit).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "checker/elf/elf_device_code.h"
#include "checker/kinds/elf_facts.h"

namespace kcheck {
namespace {

// An offload bundle (__CLANG_OFFLOAD_BUNDLE__) naming `triples`, no code.
std::string offload_bundle(const std::vector<std::string>& triples) {
  auto u64 = [](std::uint64_t value) {
    std::string bytes(8, '\0');
    for (std::size_t i = 0; i < 8; ++i) bytes[i] = static_cast<char>(value >> (8 * i));
    return bytes;
  };
  std::string bundle = "__CLANG_OFFLOAD_BUNDLE__" + u64(triples.size());
  for (const std::string& triple : triples) bundle += u64(0) + u64(0) + u64(triple.size()) + triple;
  return bundle;
}

TEST(DeviceCode, TargetNumbersPastSixtyFourBitsAreListedLast) {
  const std::string huge = "gfx" + std::string(30, '9');
  const std::string bundle =
      offload_bundle({"hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--" + huge,
                      "hipv4-amdgcn-amd-amdhsa--gfx1030", "hipv4-amdgcn-amd-amdhsa--gfx" + std::string(25, '8')});
  DeviceCodeFacts facts;
  read_hip_fatbin(std::as_bytes(std::span(bundle.data(), bundle.size())), facts);
  EXPECT_EQ(facts.error, "");
  EXPECT_EQ(facts.hip_targets, (std::vector<std::string>{"gfx90a", "gfx1030", "gfx" + std::string(25, '8'), huge}));
}

}  // namespace
}  // namespace kcheck
