#pragma once
#include <string>

#include "checker/core/progress.h"
#include "checker/core/rule_registry.h"
#include "checker/core/tree_facts.h"

namespace kcheck {

// Options that shape one audit (from the CLI or a caller of the library).
struct AuditOptions {
  CodeSelection selection;
  bool strict = false;      // warnings fail the gate
  bool security = false;    // Hub-side profile: no code execution, KP006 as error
  std::string repo_id;      // --repo-id owner/name, for KM005
  unsigned threads = 0;     // 0 = one per hardware thread
  ProgressSink* progress = nullptr;  // counts files scanned, bytes hashed, variants run; none: silent
  WalkLimits limits;        // --max-depth, --max-files, --max-file-size
};

}  // namespace kcheck
