#include "checker/facts/tree_facts.h"

#include <algorithm>

namespace kcheck {

bool FileEntry::readable_file() const {
  if (!read_error.empty()) return false;
  if (kind == FileKind::regular) return true;
  if (kind != FileKind::symlink || link_escapes_variant || link_loops || link_target_is_directory) return false;
  std::error_code error;
  return std::filesystem::is_regular_file(path, error);
}

const FileEntry* VariantFacts::find_file(std::string_view variant_relative) const {
  auto it = std::lower_bound(files.begin(), files.end(), variant_relative,
                             [](const FileEntry& entry, std::string_view path) { return entry.relative_path < path; });
  if (it != files.end() && it->relative_path == variant_relative) return &*it;
  return nullptr;
}

}  // namespace kcheck
