#pragma once
#include <memory>

#include "checker/core/rule.h"

namespace kcheck {

std::unique_ptr<Rule> make_ko001_registered_namespace_mismatch();
std::unique_ptr<Rule> make_ko002_namespace_without_unique_part();
std::unique_ptr<Rule> make_ko003_literal_op_namespace();
std::unique_ptr<Rule> make_ko004_literal_torch_ops_namespace();
std::unique_ptr<Rule> make_ko005_namespace_reused_across_revisions();

}  // namespace kcheck
