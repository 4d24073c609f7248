#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "checker/core/report.h"

namespace kcheck {

// One line per finding, for tools that read lines (suppressed findings are
// left out). Paths are the audited root's files made relative to
// `relative_to` when given (the repository root, the current directory),
// else as the report has them (relative to the audited root).

// GitHub Actions workflow commands, which the runner turns into annotations
// on the pull request (like ruff's --output-format github):
//   ::error file=build/x/_k.abi3.so,line=7,title=KE001::message
// error, warning and notice by severity; property and message text escaped
// as GitHub requires (%, CR, LF, and ':' ',' in properties), after
// display_safe, so no upload text can start a command of its own.
std::string render_github(const Report& report, const std::optional<std::filesystem::path>& relative_to,
                          Severity least_shown = Severity::note);

// "path:line: CODE message" ("path: CODE message" without a line; "." for
// the tree), like gcc's and ruff's concise output: clickable in terminals and editors.
std::string render_concise(const Report& report, const std::optional<std::filesystem::path>& relative_to,
                           Severity least_shown = Severity::note);

}  // namespace kcheck
