#include "checker/elf/elf_device_code.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "checker/support/text_scan.h"

namespace kcheck {
namespace {

// Fat binary headers are little-endian on every host CUDA and ROCm support.
class LittleEndianBytes {
 public:
  explicit LittleEndianBytes(std::span<const std::byte> bytes) : bytes_(bytes) {}

  bool has(std::uint64_t offset, std::uint64_t size) const {
    return offset <= bytes_.size() && size <= bytes_.size() - offset;
  }
  std::uint64_t read(std::uint64_t offset, int width) const {
    std::uint64_t value = 0;
    for (int index = width - 1; index >= 0; --index)
      value = value << 8 | static_cast<std::uint8_t>(bytes_[offset + index]);
    return value;
  }
  std::string_view text(std::uint64_t offset, std::uint64_t size) const {
    return {reinterpret_cast<const char*>(bytes_.data()) + offset, static_cast<std::size_t>(size)};
  }
  std::uint64_t size() const { return bytes_.size(); }

 private:
  std::span<const std::byte> bytes_;
};

// The first run of digits in an arch name without leading zeros ("sm_090a"
// -> "90"); compared as text it needs no integer, so no length overflows.
std::string_view arch_number(std::string_view arch) {
  const std::size_t first = std::min(arch.find_first_of("0123456789"), arch.size());
  std::string_view digits = arch.substr(first);
  digits = digits.substr(0, std::min(digits.find_first_not_of("0123456789"), digits.size()));
  while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
  return digits;
}

// Orders "sm_75" < "sm_80" < "sm_90a" < "sm_100" by the number after '_'.
struct ArchLess {
  bool operator()(const std::string& a, const std::string& b) const {
    const std::string_view na = arch_number(a), nb = arch_number(b);
    if (na.size() != nb.size()) return na.size() < nb.size();
    return na != nb ? na < nb : a < b;
  }
};

// The distinct archs of one kind, sorted as they are listed. A module built
// for every GPU carries a few dozen; a set keeps each insertion O(log n), and
// the bound stops a section crafted to hold hundreds of thousands.
class ArchList {
 public:
  // Starts from what `listed` holds and writes the sorted list back into it
  // when the walk that uses it ends.
  explicit ArchList(std::vector<std::string>& listed) : listed_(listed), archs_(listed.begin(), listed.end()) {}
  ArchList(const ArchList&) = delete;
  ArchList& operator=(const ArchList&) = delete;
  ~ArchList() { listed_.assign(archs_.begin(), archs_.end()); }

  // False (nothing added) when `arch` is new and the list is full.
  bool add(std::string arch) {
    if (archs_.size() >= kMaxDeviceCodeArchs && !archs_.contains(arch)) return false;
    archs_.insert(std::move(arch));
    return true;
  }

 private:
  std::vector<std::string>& listed_;
  std::set<std::string, ArchLess> archs_;
};

std::string too_many_archs(std::string_view kind, std::string_view section) {
  return "more than " + std::to_string(kMaxDeviceCodeArchs) + " distinct " + std::string(kind) + " in " +
         std::string(section) + "; the rest are not listed";
}

constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;
constexpr std::uint64_t kContainerHeaderSize = 16;
constexpr std::uint64_t kEntryHeaderSize = 64;
constexpr std::uint16_t kEntryPtx = 1;
constexpr std::uint16_t kEntryCubin = 2;
constexpr std::uint64_t kArchSpecificFlag = 0x100000;    // sm_90a: cuobjdump shows the 'a'
constexpr std::uint64_t kFamilySpecificFlag = 0x200000;  // sm_100f
// A compressed payload: an LZ4 block (--compress-mode=speed, and CUDA 12's
// -compress-all) or a zstd frame (nvcc 13's other modes). Its header then
// holds the compressed size (the payload size is rounded up to 8) and the
// size it decompresses to.
constexpr std::uint64_t kCompressedLz4Flag = 0x2000;
constexpr std::uint64_t kCompressedZstdFlag = 0x8000;
constexpr std::uint64_t kCompressedSizeOffset = 16;    // 4 bytes
constexpr std::uint64_t kDecompressedSizeOffset = 56;  // 8 bytes

CompressedFatbinPayload::Method compression_method(std::uint64_t flags) {
  const std::uint64_t compression = flags & (kCompressedLz4Flag | kCompressedZstdFlag);
  if (compression == kCompressedLz4Flag) return CompressedFatbinPayload::Method::lz4;
  if (compression == kCompressedZstdFlag) return CompressedFatbinPayload::Method::zstd;
  return CompressedFatbinPayload::Method::unknown;  // both flags
}

std::string arch_suffix(std::uint64_t flags) {
  if (flags & kArchSpecificFlag) return "a";
  if (flags & kFamilySpecificFlag) return "f";
  return "";
}

std::string at_offset(std::uint64_t offset, std::string_view section) {
  return " at offset " + std::to_string(offset) + " of " + std::string(section);
}

// Offset of the next occurrence of `needle` at or after `from`.
std::optional<std::uint64_t> find_bytes(const LittleEndianBytes& bytes, std::uint64_t from, std::string_view needle) {
  if (from >= bytes.size()) return std::nullopt;
  const std::string_view haystack = bytes.text(from, bytes.size() - from);
  const auto found = haystack.find(needle);
  if (found == std::string_view::npos) return std::nullopt;
  return from + found;
}

}  // namespace

struct CudaFatbinWalk::Archs {
  explicit Archs(DeviceCodeFacts& device_code) : sass(device_code.cuda_sass_archs), ptx(device_code.cuda_ptx_archs) {}
  ArchList sass, ptx;
  // (kind, arch, suffix) of the entries listed: most entries repeat one (a
  // library holds a cubin per group of kernels and arch), and a repeat needs
  // no name made.
  std::unordered_set<std::uint64_t> listed;
};

CudaFatbinWalk::CudaFatbinWalk(std::span<const std::byte> section, DeviceCodeFacts& device_code,
                               std::string_view section_name)
    : section_(section),
      section_name_(section_name),
      device_code_(device_code),
      archs_(std::make_unique<Archs>(device_code)) {}

CudaFatbinWalk::~CudaFatbinWalk() = default;

void CudaFatbinWalk::walk_until(std::uint64_t limit) {
  while (!done_ && offset_ < limit) step();
}

// One header: a container's (or the padding before one) between containers,
// an entry's inside one.
void CudaFatbinWalk::step() {
  const LittleEndianBytes bytes(section_);
  if (offset_ < container_end_) {
    if (container_end_ - offset_ < kEntryHeaderSize)
      return stop("truncated fat binary entry header" + at_offset(offset_, section_name_));
    const auto kind = static_cast<std::uint16_t>(bytes.read(offset_, 2));
    const std::uint64_t header_size = bytes.read(offset_ + 4, 4);
    const std::uint64_t payload_size = bytes.read(offset_ + 8, 8);
    const std::uint64_t arch = bytes.read(offset_ + 28, 4);
    const std::uint64_t flags = bytes.read(offset_ + 40, 8);
    if (header_size < kEntryHeaderSize || header_size > container_end_ - offset_ ||
        payload_size > container_end_ - offset_ - header_size)
      return stop("fat binary entry" + at_offset(offset_, section_name_) + " extends past its container");
    const std::string suffix = arch_suffix(flags);
    const std::uint64_t key = arch << 16 | static_cast<std::uint64_t>(suffix.empty() ? 0 : suffix[0]) << 8 | kind;
    if ((kind == kEntryCubin || kind == kEntryPtx) && !archs_->listed.contains(key)) {
      if ((kind == kEntryCubin && !archs_->sass.add("sm_" + std::to_string(arch) + suffix)) ||
          (kind == kEntryPtx && !archs_->ptx.add("compute_" + std::to_string(arch) + suffix)))
        return stop(too_many_archs(kind == kEntryCubin ? "SASS archs" : "PTX archs", section_name_));
      archs_->listed.insert(key);
    }
    if (compressed_ != nullptr && (flags & (kCompressedLz4Flag | kCompressedZstdFlag)) != 0) {
      if (compressed_->listed.size() < kMaxCompressedFatbinPayloads) {
        const std::uint64_t compressed_size = bytes.read(offset_ + kCompressedSizeOffset, 4);
        compressed_->listed.push_back({offset_ + header_size,
                                       compressed_size == 0 ? payload_size : std::min(compressed_size, payload_size),
                                       bytes.read(offset_ + kDecompressedSizeOffset, 8), compression_method(flags)});
      } else {
        ++compressed_->not_listed;
      }
    }
    offset_ += header_size + payload_size;
    return;
  }
  if (!bytes.has(offset_, kContainerHeaderSize)) {
    done_ = true;
    offset_ = section_.size();
    return;
  }
  const std::uint64_t magic = bytes.read(offset_, 4);
  if (magic == 0) {  // alignment padding between containers
    offset_ += 8;
    return;
  }
  if (magic != kFatbinMagic) return stop("no fat binary header" + at_offset(offset_, section_name_));
  const std::uint64_t header_size = bytes.read(offset_ + 6, 2);
  const std::uint64_t body_size = bytes.read(offset_ + 8, 8);
  if (header_size < kContainerHeaderSize || !bytes.has(offset_ + header_size, body_size))
    return stop("fat binary container" + at_offset(offset_, section_name_) + " extends past the end of the section");
  container_end_ = offset_ + header_size + body_size;
  offset_ += header_size;
}

void CudaFatbinWalk::stop(std::string error) {
  device_code_.error = std::move(error);
  done_ = true;
  stopped_at_ = offset_;
  offset_ = section_.size();
}

void read_cuda_fatbin(std::span<const std::byte> section, DeviceCodeFacts& device_code) {
  CudaFatbinWalk(section, device_code).walk_until(section.size());
}

std::uint64_t count_compressed_offload_bundles(std::span<const std::byte> section) {
  static constexpr std::string_view kMagic = "CCOB";
  static constexpr std::size_t kBundleAlignment = 4096;
  const std::string_view text(reinterpret_cast<const char*>(section.data()), section.size());
  std::uint64_t bundles = 0;
  for (std::size_t at = 0; at < text.size(); at += kBundleAlignment)
    if (text.substr(at).starts_with(kMagic)) ++bundles;
  return bundles;
}

void read_hip_fatbin(std::span<const std::byte> section, DeviceCodeFacts& device_code) {
  static constexpr std::string_view kBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";
  static constexpr std::uint64_t kMaxBundleEntries = 4096;
  const LittleEndianBytes bytes(section);
  std::uint64_t offset = 0;
  bool found_bundle = false;
  ArchList targets(device_code.hip_targets);
  while (const auto start = find_bytes(bytes, offset, kBundleMagic)) {
    found_bundle = true;
    std::uint64_t cursor = *start + kBundleMagic.size();
    if (!bytes.has(cursor, 8) || bytes.read(cursor, 8) > kMaxBundleEntries) {
      device_code.error = "malformed offload bundle header at offset " + std::to_string(*start) + " of .hip_fatbin";
      return;
    }
    const std::uint64_t entry_count = bytes.read(cursor, 8);
    cursor += 8;
    std::uint64_t bundle_end = cursor;
    for (std::uint64_t index = 0; index < entry_count; ++index) {
      if (!bytes.has(cursor, 24) || !bytes.has(cursor + 24, bytes.read(cursor + 16, 8))) {
        device_code.error = "truncated offload bundle entry at offset " + std::to_string(cursor) + " of .hip_fatbin";
        return;
      }
      const std::uint64_t code_offset = bytes.read(cursor, 8), code_size = bytes.read(cursor + 8, 8);
      const std::uint64_t triple_size = bytes.read(cursor + 16, 8);
      const std::string_view triple = bytes.text(cursor + 24, triple_size);
      // "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-": keep the processor, drop features.
      if (const auto gfx = triple.find("gfx");
          triple.find("amdgcn") != std::string_view::npos && gfx != std::string_view::npos) {
        const std::string_view target = triple.substr(gfx);
        if (!targets.add(std::string(target.substr(0, target.find(':'))))) {
          device_code.error = too_many_archs("targets", ".hip_fatbin");
          return;
        }
      }
      if (bytes.has(*start + code_offset, code_size))
        bundle_end = std::max(bundle_end, *start + code_offset + code_size);
      cursor += 24 + triple_size;
    }
    offset = std::max(bundle_end, cursor);
  }
  if (!found_bundle && count_compressed_offload_bundles(section) > 0) {
    device_code.error = ".hip_fatbin holds a compressed offload bundle; its targets are not listed";
  } else if (!found_bundle) {
    device_code.error = ".hip_fatbin holds no offload bundle";
  }
}

}  // namespace kcheck
