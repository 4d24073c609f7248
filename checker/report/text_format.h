#pragma once
#include <string>

#include "checker/core/report.h"

namespace kcheck {

struct TextStyle {
  bool colour = false;
};

// Human-readable report: findings grouped by variant, then a summary line.
std::string render_text(const Report& report, const TextStyle& style);

}  // namespace kcheck
