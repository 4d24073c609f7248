#pragma once
// The metadata family (KM): metadata.json, the digest and the kernel's identity.
// The family's registration table: one line per rule, in code order. A rule is
// its file rules/<code>_<what>.cpp, which defines the factory this line names
// (`make_<code>_<what>`), and this line (scripts/new-rule.py writes both).
#include "checker/core/rule_table.h"

#define KCHECK_METADATA_RULES(RULE)    \
  RULE(km001_metadata_missing)         \
  RULE(km002_metadata_schema)          \
  RULE(km003_id_consistency)           \
  RULE(km004_backend_matches_variant)  \
  RULE(km005_name_version_consistency) \
  RULE(km006_python_depends_allowed)   \
  RULE(km007_digest_matches_files)     \
  RULE(km008_provenance_dirty)         \
  RULE(km009_license_accepted)         \
  RULE(km010_backend_archs)

namespace kcheck {

KCHECK_METADATA_RULES(KCHECK_DECLARE_RULE_FACTORY)

inline constexpr RuleFactory kMetadataRules[] = {KCHECK_METADATA_RULES(KCHECK_RULE_FACTORY_ENTRY)};

}  // namespace kcheck
