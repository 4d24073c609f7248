#pragma once
#include "checker/kinds/build_config_facts.h"
#include "checker/core/finding.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {

// Where a finding about build.toml points.
inline Place config_place(const BuildConfigFacts& config, ConfigPosition position) {
  return Place{.file = config.relative_path, .location = {.line = position.line, .column = position.column}};
}

// The facts the KC rules judge: a build.toml that was found and read.
inline const BuildConfigFacts* readable_build_config(const TreeFacts& tree) {
  if (!tree.build_config || !tree.build_config->present) return nullptr;
  return &*tree.build_config;
}

// A build.toml whose values can be judged: it parsed and is not a format
// the builder rejects outright (those get their one KC002 error).
inline const BuildConfigFacts* judgeable_build_config(const TreeFacts& tree) {
  const BuildConfigFacts* config = readable_build_config(tree);
  if (!config || !config->read_error.empty() || !config->parse_error.empty()) return nullptr;
  if (config->edition != BuildEdition::edition5 && config->edition != BuildEdition::v4 &&
      config->edition != BuildEdition::unknown)
    return nullptr;
  return config;
}

// Where a finding about one entry of the repository's kcheck.toml points, and
// how its message names the entry ("kcheck.toml:3: the suppression of KL005
// on build/*/x.o"). Findings' paths are relative to the audited root; the
// config file sits at the repository root, which is above it when a variant
// is audited: then the finding names no file.
inline Place config_file_place(const TreeFacts& tree, int line) {
  return {.file = tree.suppression_path_prefix.empty() ? tree.suppressions->file : "", .location = {.line = line}};
}

inline Place suppression_place(const TreeFacts& tree, const Suppression& suppression) {
  return config_file_place(tree, suppression.line);
}

inline std::string suppression_named(const TreeFacts& tree, const Suppression& suppression) {
  return tree.suppressions->file + ":" + std::to_string(suppression.line) + ": the suppression of " + suppression.code +
         (suppression.path.empty() ? "" : " on " + suppression.path);
}

}  // namespace kcheck
