#pragma once
#include <string>
#include <vector>

#include "checker/core/severity.h"

namespace kcheck {

// Where inside a file a finding applies. Every member is optional; a rule
// fills what it knows (a symbol for ELF rules, a line for Python and TOML,
// a JSON pointer for metadata).
struct Location {
  std::string symbol;
  std::string section;
  std::string json_pointer;
  int line = 0;    // 1-based, 0 = none
  int column = 0;  // 1-based, 0 = none

  bool empty() const { return symbol.empty() && section.empty() && json_pointer.empty() && line == 0; }
  friend bool operator==(const Location&, const Location&) = default;
};

// Which thing a finding is about: the variant directory name (empty for
// tree-level findings) and the file relative to the audited root.
struct Place {
  std::string variant;
  std::string file;
  Location location;
};

struct Finding {
  std::string code;
  Severity severity = Severity::error;
  std::string message;
  std::string variant;
  std::string file;
  Location location;
  bool suppressed = false;
  std::string suppression_reason;
};

using Findings = std::vector<Finding>;

}  // namespace kcheck
