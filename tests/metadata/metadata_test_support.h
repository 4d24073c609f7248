#pragma once
#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/rule.h"
#include "checker/facts/tree_facts.h"
#include "checker/metadata/metadata_reader.h"

namespace kcheck::testing {

// A directory under the system temp dir, removed with everything in it.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kcheck-metadata-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

  void write(const std::string& relative, std::string_view content) const {
    const auto file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
  }

 private:
  std::filesystem::path path_;
};

// The entries of a directory as the tree walker records them (sorted
// relative paths; symlinked directories listed, not descended). Enough for
// the digest tests; the product walk is checker/audit's.
inline std::vector<FileEntry> list_entries(const std::filesystem::path& root) {
  std::vector<FileEntry> entries;
  for (const auto& item : std::filesystem::recursive_directory_iterator(root)) {
    FileEntry entry;
    entry.path = item.path();
    entry.relative_path = item.path().lexically_relative(root).generic_string();
    if (item.is_symlink()) {
      entry.kind = FileKind::symlink;
      entry.link_target = std::filesystem::read_symlink(item.path()).string();
      entry.link_target_is_directory = std::filesystem::is_directory(item.path());
    } else if (item.is_directory()) {
      entry.kind = FileKind::directory;
    } else if (item.is_regular_file()) {
      entry.size = item.file_size();
    } else {
      entry.kind = FileKind::other;
    }
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(),
            [](const FileEntry& a, const FileEntry& b) { return a.relative_path < b.relative_path; });
  return entries;
}

inline VariantName cpu_variant_name(const std::string& torch = "212") {
  VariantName name;
  name.kind = VariantKind::torch;
  name.framework_version = Version({2, static_cast<std::uint32_t>(std::stoi(torch.substr(1)))});
  name.cxx_tag = "cxx11";
  name.compute = "cpu";
  name.backend = "cpu";
  name.cpu = "x86_64";
  name.os = "linux";
  return name;
}

inline VariantName cuda_variant_name() {
  VariantName name = cpu_variant_name("213");
  name.compute = "cu130";
  name.backend = "cuda";
  name.backend_version = Version({13, 0});
  return name;
}

inline constexpr std::string_view kCleanCpuMetadata = R"({
  "id": "_relu_cpu_0a1b2c3", "name": "relu", "version": 1, "license": "apache-2.0",
  "python-depends": [], "backend": {"type": "cpu"}
})";

// A variant of tree scope whose metadata.json is `metadata_text` (parsed
// as the reader does; no file on disk).
inline VariantFacts variant_with_metadata(const std::string& directory_name, VariantName name,
                                          std::string_view metadata_text) {
  VariantFacts variant;
  variant.directory_name = directory_name;
  variant.relative_path = "build/" + directory_name;
  const bool archs_required = name.compiled() && (name.backend == "cuda" || name.backend == "rocm");
  variant.name = std::move(name);
  variant.metadata = parse_metadata_text(metadata_text, archs_required);
  variant.metadata.relative_path = variant.report_path("metadata.json");
  return variant;
}

inline Policy test_policy() {
  Policy policy;
  policy.name = "test";
  policy.accepted_licenses = {"apache-2.0", "mit", "other"};
  policy.python.general_dependencies = {{"einops", {"einops"}}, {"helion", {"helion"}}};
  policy.python.backend_dependencies["cuda"] = {{"nvidia-cutlass-dsl", {"cutlass"}}};
  policy.python.backend_dependencies["cpu"] = {};
  return policy;
}

// Runs one rule over `tree` and returns its findings.
inline Findings run_rule(const Rule& rule, const TreeFacts& tree, const Policy& policy = test_policy(),
                         const AuditOptions& options = {}) {
  Findings findings;
  FindingSink sink(rule.info(), findings);
  rule.check(RuleContext{tree, policy, options.rule_options()}, sink);
  return findings;
}

inline TreeFacts tree_of(std::vector<VariantFacts> variants) {
  TreeFacts tree;
  tree.build_dir_exists = true;
  tree.variants = std::move(variants);
  return tree;
}

}  // namespace kcheck::testing
