#pragma once
#include <memory>

#include "checker/core/rule.h"

namespace kcheck {

std::unique_ptr<Rule> make_kl001_no_build_directory();

}  // namespace kcheck
