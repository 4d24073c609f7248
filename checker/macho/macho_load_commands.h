#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "checker/support/version.h"

namespace kcheck {

// What kcheck reads from a Mach-O image's header and load commands itself:
// LIEF 0.9 predates LC_BUILD_VERSION, and the walk doubles as the bounds
// check that runs before LIEF sees the file.
struct MachOHeaderFacts {
  std::string error;
  std::string arch;                // of the slice read: "arm64", "x86_64", "cpu_<n>"
  std::uint64_t slice_offset = 0;  // where that slice starts in a universal file
  std::optional<Version> minimum_macos;
};

// Reads the first slice of a thin or universal Mach-O file.
MachOHeaderFacts read_macho_header(std::span<const std::byte> file);

}  // namespace kcheck
