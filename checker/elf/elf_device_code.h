#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "checker/kinds/elf_facts.h"

namespace kcheck {

// Distinct archs listed per kind (SASS, PTX, HIP targets) of one module; a
// module for every GPU generation has a few dozen. Past it the walk stops and
// DeviceCodeFacts::error says so.
inline constexpr std::size_t kMaxDeviceCodeArchs = 256;

// Lists the cubin (SASS) and PTX entries of a `.nv_fatbin` section by
// walking container and entry headers only; payloads are skipped, never
// decompressed. After each entry, `consumed(offset)` is told how far the walk
// got so that a caller reading from a mapping can drop pages behind it.
void read_cuda_fatbin(std::span<const std::byte> section, DeviceCodeFacts& device_code,
                      const std::function<void(std::uint64_t)>& consumed = {});

// Lists the AMD GPU targets of the Clang offload bundles in `.hip_fatbin`.
void read_hip_fatbin(std::span<const std::byte> section, DeviceCodeFacts& device_code);

}  // namespace kcheck
