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
  // hidden"); the CLI hides notes unless --show-notes or --min-severity say
  // otherwise. Suppressed findings are listed only when notes are.
  Severity least_shown = Severity::note;
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

// The first clause of a rule's "Fix:" paragraph when it fits one line and
// says what to do, else "" (text output then points at `kcheck explain CODE`).
std::string one_line_fix(const RuleInfo& rule);

}  // namespace kcheck
