#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/facts/tree_facts.h"

namespace kcheck {

// The input cannot be audited at all (missing path, unreadable directory).
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Decides what `input` is (kernel repository, build directory, one variant,
// one native module), finds its variants and walks each once, never following
// links. Fills the structural facts only; the audit adds the analysers' facts.
TreeFacts discover_tree(const std::filesystem::path& input, const WalkLimits& limits = {});

// Walks one variant directory: every entry below it, sorted by relative path.
std::vector<FileEntry> walk_variant(const std::filesystem::path& variant_root, const WalkLimits& limits = {});

}  // namespace kcheck
