#pragma once
#include <memory>

#include "checker/core/rule.h"

namespace kcheck {

std::unique_ptr<Rule> make_ke001_glibc_symbol_ceiling();
std::unique_ptr<Rule> make_ke002_cxx_runtime_symbol_ceiling();
std::unique_ptr<Rule> make_ke003_dynamic_cxx_runtime();
std::unique_ptr<Rule> make_ke004_unexpected_library();
std::unique_ptr<Rule> make_ke005_not_abi3();
std::unique_ptr<Rule> make_ke006_unstable_torch_symbol();
std::unique_ptr<Rule> make_ke007_wrong_binary_format();
std::unique_ptr<Rule> make_ke008_missing_pyinit();
std::unique_ptr<Rule> make_ke009_default_visibility_exports();
std::unique_ptr<Rule> make_ke010_rpath_leaves_variant();
std::unique_ptr<Rule> make_ke011_writable_executable_memory();
std::unique_ptr<Rule> make_ke012_hardening_and_build_leaks();
std::unique_ptr<Rule> make_ke013_macos_minimum();
std::unique_ptr<Rule> make_ke014_device_code();

}  // namespace kcheck
