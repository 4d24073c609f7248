#include "checker/metadata/metadata_rules.h"

#include "checker/metadata/rules/metadata_rule_factories.h"

namespace kcheck {

void add_metadata_rules(RuleRegistry& registry) {
  registry.add(make_km001_metadata_missing());
  registry.add(make_km002_metadata_schema());
  registry.add(make_km003_id_consistency());
  registry.add(make_km004_backend_matches_variant());
  registry.add(make_km005_name_version_consistency());
  registry.add(make_km006_python_depends_allowed());
  registry.add(make_km007_digest_matches_files());
  registry.add(make_km008_provenance_dirty());
  registry.add(make_km009_license_accepted());
  registry.add(make_km010_backend_archs());
}

}  // namespace kcheck
