#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checker/kinds/build_config_facts.h"
#include "checker/core/rule.h"
#include "checker/kinds/repository_config.h"
#include "checker/support/walk_limits.h"
#include "checker/kinds/elf_facts.h"
#include "checker/kinds/harness_facts.h"
#include "checker/kinds/variant_name.h"
#include "checker/kinds/macho_facts.h"
#include "checker/kinds/metadata_facts.h"
#include "checker/kinds/namespace_facts.h"
#include "checker/kinds/python_facts.h"

namespace kcheck {

enum class FileKind { regular, directory, symlink, other };

// One entry of a variant, found by the single walk of the tree.
struct FileEntry {
  std::string relative_path;   // relative to the variant root, '/' separators
  std::filesystem::path path;  // absolute
  FileKind kind = FileKind::regular;
  std::uint64_t size = 0;
  std::uint64_t hard_links = 1;
  bool hard_link_outside_variant = false;  // more links than names inside the variant
  bool valid_utf8 = true;
  // For symlinks: the target as written and whether it resolves inside the variant.
  std::string link_target;
  bool link_escapes_variant = false;
  bool link_loops = false;
  bool link_target_is_directory = false;
  std::string read_error;  // set when the entry could not be inspected

  // A regular file, or a link to one that stays inside the variant: what
  // kcheck reads and hashes. Links leaving the variant are never followed.
  bool readable_file() const;
};

// A native module (ELF or Mach-O) of a variant and its facts.
struct NativeModuleFacts {
  std::string relative_path;  // relative to the variant root
  std::optional<ElfFacts> elf;
  std::optional<MachOFacts> macho;
};

struct VariantFacts {
  std::string directory_name;
  std::filesystem::path path;  // absolute
  std::string relative_path;   // relative to the audited root ("build/<name>" or "")
  std::optional<VariantName> name;
  std::string name_error;        // why the name does not parse (KL002)
  std::vector<FileEntry> files;  // every entry below the variant, sorted by path
  // False when the variant directory itself cannot be listed (KL007 names it):
  // rules about what it lacks (KL003, KM001) have nothing to judge.
  bool listed = true;

  MetadataFacts metadata;
  std::optional<DigestCheck> digest;
  std::vector<NativeModuleFacts> native_modules;
  std::vector<PythonFileFacts> python_files;
  // Each ELF module's imports resolved against the libraries at hand
  // (AuditOptions::library_directories, KE015); empty when none were given.
  std::vector<NeededClosureFacts> needed_closures;
  // Dynamic facts, filled only by `kcheck run` (checker/harness).
  std::optional<HarnessFacts> harness;

  // Path of a variant-relative file as reported in findings.
  std::string report_path(const std::string& variant_relative) const {
    return relative_path.empty() ? variant_relative : relative_path + "/" + variant_relative;
  }
  const FileEntry* find_file(std::string_view variant_relative) const;
};

// What the user asked to audit.
enum class AuditScope {
  tree,     // a kernel repository or its build/ directory
  variant,  // one variant directory
  module,   // one native module file
  source,   // a kernel source tree: build.toml only (`kcheck config`)
};

// One build (variant) of one revision of a repository, as `kcheck scan`
// sees it when given several revisions of that repository (KO005).
struct RevisionBuild {
  std::string revision;
  std::string variant;                  // directory name
  std::string content_digest;           // SHA-256 over its digest-covered files' paths and hashes
  std::vector<std::string> namespaces;  // op namespaces it registers (native modules, `_ops.py`)
};

struct TreeFacts {
  std::filesystem::path audited_root;  // what report paths are relative to
  std::filesystem::path build_dir;     // the build/ directory (tree scope)
  AuditScope scope = AuditScope::tree;
  bool build_dir_exists = false;
  // What was collected: a source repository's files only, a build's, or also
  // the kernel's code run (`kcheck run`) or run and timed (`kcheck bench`).
  // Rules needing more do not run.
  RuleNeeds collected = RuleNeeds::build;
  std::vector<VariantFacts> variants;
  // build.toml at the audited root, when there is one (KC rules).
  std::optional<BuildConfigFacts> build_config;
  // A source repository's audit (scope source, with its sources): the op
  // registrations written in the C++ sources build.toml lists (KO001). Its
  // Python package is a variant of each backend (`torch-ext/<name> (cuda)`).
  std::vector<SourceRegistration> source_registrations;
  // kcheck.toml / pyproject.toml [tool.kcheck] of the kernel repository, and
  // what turns a finding's path into one relative to that repository's root.
  std::optional<SuppressionConfig> suppressions;
  std::string suppression_path_prefix;
  // Set by `kcheck scan` for a repository given in several revisions: this
  // tree's revision and the builds of every revision, this one included.
  std::string revision;
  std::vector<RevisionBuild> revision_builds;
};

}  // namespace kcheck
