#pragma once
#include <memory>

#include "checker/core/rule.h"

namespace kcheck {

std::unique_ptr<Rule> make_kp001_own_package_absolute_import();
std::unique_ptr<Rule> make_kp002_import_not_allowed();
std::unique_ptr<Rule> make_kp003_syntax_newer_than_floor();
std::unique_ptr<Rule> make_kp004_public_api_all();
std::unique_ptr<Rule> make_kp005_layer_purity();
std::unique_ptr<Rule> make_kp006_executes_or_fetches();
std::unique_ptr<Rule> make_kp007_python_syntax_error();

}  // namespace kcheck
