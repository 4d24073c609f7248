#pragma once
#include <optional>
#include <string_view>

namespace kcheck {

// Ordered by weight: a finding's severity decides whether the gate fails.
enum class Severity { note = 0, warning = 1, error = 2 };

std::string_view to_string(Severity severity);
std::optional<Severity> parse_severity(std::string_view text);

}  // namespace kcheck
