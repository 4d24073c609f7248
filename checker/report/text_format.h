#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checker/core/report.h"
#include "checker/core/rule.h"

namespace kcheck {

struct TextStyle {
  bool colour = false;
  // Findings below this severity are not shown, only counted ("3 notes
  // hidden"); --show-notes and --min-severity choose. Suppressed findings are
  // counted, never listed, unless notes are shown.
  Severity least_shown = Severity::warning;
  bool quiet = false;  // the findings only: no heading, no passing variants, no summary line
  // Paths relative to this directory (where kcheck ran: clickable in a
  // terminal); none: relative to the audited root.
  std::optional<std::filesystem::path> relative_to;
};

// Human-readable report: tree-level findings, then the findings several
// variants repeat identically (once, with the variants), then each variant's
// own, each ending with a one-line fix or `kcheck explain CODE`; then a
// summary line with what was hidden.
std::string render_text(const Report& report, const TextStyle& style, const std::vector<RuleInfo>& rules);

// The first clause of a rule's "Fix:" paragraph when it fits one line, else "".
std::string one_line_fix(const RuleInfo& rule);

}  // namespace kcheck
