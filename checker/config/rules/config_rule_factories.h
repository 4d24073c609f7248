#pragma once
#include <memory>

#include "checker/core/rule.h"

namespace kcheck {

std::unique_ptr<Rule> make_kc001_not_toml();
std::unique_ptr<Rule> make_kc002_schema_violation();
std::unique_ptr<Rule> make_kc003_listed_path_invalid();
std::unique_ptr<Rule> make_kc004_python_package_missing();
std::unique_ptr<Rule> make_kc005_restricts_required_variants();
std::unique_ptr<Rule> make_kc006_suppression_without_reason();
std::unique_ptr<Rule> make_kc007_suppression_not_applied();

}  // namespace kcheck
