#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "checker/kinds/elf_facts.h"

namespace kcheck {

// Distinct archs listed per kind (SASS, PTX, HIP targets) of one module; a
// module for every GPU generation has a few dozen. Past it the walk stops and
// DeviceCodeFacts::error says so.
inline constexpr std::size_t kMaxDeviceCodeArchs = 256;

// A compressed entry of .nv_fatbin (nvcc's --compress-mode, or
// `-Xfatbin -compress-all`): where its payload lies in the section, how it
// was compressed, and what its header says it decompresses to. nvcc 13
// compresses the PTX it embeds by default, and cubins too in
// --compress-mode=size; so are most of CUDA's and Torch's libraries'.
struct CompressedFatbinPayload {
  enum class Method : std::uint8_t { lz4, zstd, unknown };
  std::uint64_t offset = 0;             // of the payload, into the section
  std::uint64_t size = 0;               // compressed bytes
  std::uint64_t decompressed_size = 0;  // as the entry's header declares
  Method method = Method::unknown;
};

// The compressed payloads a walk passed, in section order: the first
// kMaxCompressedFatbinPayloads, and how many more there were.
inline constexpr std::size_t kMaxCompressedFatbinPayloads = std::size_t{1} << 20;
struct CompressedFatbinPayloads {
  std::vector<CompressedFatbinPayload> listed;
  std::uint64_t not_listed = 0;
};

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
  // `section_name` names the section in errors: .nv_fatbin, or
  // __nv_relfatbin (the relocatable device code of -rdc, same format).
  CudaFatbinWalk(std::span<const std::byte> section, DeviceCodeFacts& device_code,
                 std::string_view section_name = ".nv_fatbin");
  ~CudaFatbinWalk();
  CudaFatbinWalk(const CudaFatbinWalk&) = delete;
  CudaFatbinWalk& operator=(const CudaFatbinWalk&) = delete;

  // Reads every header that starts before `limit` (an offset into the
  // section) and has not been read; reads nothing past a header's first
  // 48 bytes.
  void walk_until(std::uint64_t limit);
  // Also lists the compressed payloads it passes from now on in `into`.
  void list_compressed_payloads(CompressedFatbinPayloads& into) { compressed_ = &into; }
  // Where the next header starts; the section's size once the walk is done.
  std::uint64_t offset() const { return offset_; }
  bool done() const { return done_; }
  // Where a malformed header stopped the walk (DeviceCodeFacts::error);
  // the section's size when none did.
  std::uint64_t stopped_at() const { return stopped_at_.value_or(section_.size()); }

 private:
  struct Archs;
  void step();
  void stop(std::string error);

  std::span<const std::byte> section_;
  std::string_view section_name_;
  DeviceCodeFacts& device_code_;
  std::unique_ptr<Archs> archs_;
  CompressedFatbinPayloads* compressed_ = nullptr;
  std::uint64_t offset_ = 0;
  std::uint64_t container_end_ = 0;  // past the entries of the container being walked
  std::optional<std::uint64_t> stopped_at_;
  bool done_ = false;
};

// The compressed Clang offload bundles (hipcc --offload-compress, magic
// "CCOB") of a .hip_fatbin section, whose targets and contents kcheck does
// not read. Counted only where a bundle starts, at a 4096-byte boundary
// (clang aligns each translation unit's HIP fat binary so: CGCUDANV.cpp,
// HIPCodeObjectAlign); "CCOB" inside a code object is its bytes.
std::uint64_t count_compressed_offload_bundles(std::span<const std::byte> section);

// Lists the AMD GPU targets of the Clang offload bundles in `.hip_fatbin`.
void read_hip_fatbin(std::span<const std::byte> section, DeviceCodeFacts& device_code);

}  // namespace kcheck
