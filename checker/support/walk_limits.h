#pragma once
#include <cstddef>
#include <cstdint>

namespace kcheck {

// Why the walk stopped early or skipped part of a variant (depth or count bounds).
// Each bound reached is reported (KL007), never silently skipped.
struct WalkLimits {
  static constexpr std::uint64_t kDefaultMaxFileSize = std::uint64_t{4} << 30;
  static constexpr std::uint64_t kSecurityMaxFileSize = std::uint64_t{2} << 30;  // --security
  std::size_t max_depth = 64;
  std::size_t max_entries = 200000;
  // Larger files are neither read nor hashed (a 10 GB sparse file costs nothing).
  std::uint64_t max_file_size = kDefaultMaxFileSize;
};

}  // namespace kcheck
