#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace kcheck {

// The unique part of a variant id and where it came from (build-variants.md §3.2).
struct UniqueMaterial {
  std::string unique;  // "3f9a1c2", "3f9a1c2_dirty" or 13 base32 characters
  std::string source;  // "git tree", "random", "explicit"
  std::string commit;  // full HEAD commit when in git (provenance), else ""
  bool dirty = false;
};

// First 7 hex digits of the git tree of the kernel directory at HEAD, plus
// "_dirty" when tracked files under it have uncommitted changes; random
// base32 when the directory is not in a git repository.
UniqueMaterial unique_material_for(const std::filesystem::path& kernel_dir);

// 64 random bits as RFC 4648 base32, lowercase, no padding (13 characters).
std::string random_base32_id();

}  // namespace kcheck
