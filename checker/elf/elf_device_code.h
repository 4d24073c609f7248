#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "checker/kinds/elf_facts.h"

namespace kcheck {

// Distinct archs listed per kind (SASS, PTX, HIP targets) of one module; a
// module for every GPU generation has a few dozen. Past it the walk stops and
// DeviceCodeFacts::error says so.
inline constexpr std::size_t kMaxDeviceCodeArchs = 256;

// Lists the cubin (SASS) and PTX entries of a `.nv_fatbin` section by
// walking container and entry headers only; payloads are skipped, never
// decompressed.
void read_cuda_fatbin(std::span<const std::byte> section, DeviceCodeFacts& device_code);

// read_cuda_fatbin's walk, a stretch at a time, so that a caller reading
// from a mapping can walk the headers of the pages it has mapped for another
// reason (KE012's scan, issue #32) or drop the pages behind the walk. The
// archs are written to `device_code` when the walk is destroyed; its error
// as soon as one is found.
class CudaFatbinWalk {
 public:
  CudaFatbinWalk(std::span<const std::byte> section, DeviceCodeFacts& device_code);
  ~CudaFatbinWalk();
  CudaFatbinWalk(const CudaFatbinWalk&) = delete;
  CudaFatbinWalk& operator=(const CudaFatbinWalk&) = delete;

  // Reads every header that starts before `limit` (an offset into the
  // section) and has not been read; reads nothing past a header's first
  // 48 bytes.
  void walk_until(std::uint64_t limit);
  // Where the next header starts; the section's size once the walk is done.
  std::uint64_t offset() const { return offset_; }
  bool done() const { return done_; }

 private:
  struct Archs;
  void step();
  void stop(std::string error);

  std::span<const std::byte> section_;
  DeviceCodeFacts& device_code_;
  std::unique_ptr<Archs> archs_;
  std::uint64_t offset_ = 0;
  std::uint64_t container_end_ = 0;  // past the entries of the container being walked
  bool done_ = false;
};

// Lists the AMD GPU targets of the Clang offload bundles in `.hip_fatbin`.
void read_hip_fatbin(std::span<const std::byte> section, DeviceCodeFacts& device_code);

}  // namespace kcheck
