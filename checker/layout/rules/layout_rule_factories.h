#pragma once
#include <memory>

#include "checker/core/rule.h"

namespace kcheck {

std::unique_ptr<Rule> make_kl001_no_build_directory();
std::unique_ptr<Rule> make_kl002_variant_name_grammar();
std::unique_ptr<Rule> make_kl003_no_importable_package();
std::unique_ptr<Rule> make_kl004_compatibility_package();
std::unique_ptr<Rule> make_kl005_files_that_must_not_ship();
std::unique_ptr<Rule> make_kl006_incomplete_variant_set();
std::unique_ptr<Rule> make_kl007_links_and_special_files();
std::unique_ptr<Rule> make_kl008_native_module_name();

}  // namespace kcheck
