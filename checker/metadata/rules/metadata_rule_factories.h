#pragma once
#include <memory>

#include "checker/core/rule.h"

namespace kcheck {

std::unique_ptr<Rule> make_km001_metadata_missing();
std::unique_ptr<Rule> make_km002_metadata_schema();
std::unique_ptr<Rule> make_km003_id_consistency();
std::unique_ptr<Rule> make_km004_backend_matches_variant();
std::unique_ptr<Rule> make_km005_name_version_consistency();
std::unique_ptr<Rule> make_km006_python_depends_allowed();
std::unique_ptr<Rule> make_km007_digest_matches_files();
std::unique_ptr<Rule> make_km008_provenance_dirty();
std::unique_ptr<Rule> make_km009_license_accepted();
std::unique_ptr<Rule> make_km010_backend_archs();

}  // namespace kcheck
