#pragma once
#include "checker/audit/audit_options.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {

// Marks every finding a suppression matches (code prefix and path glob) as
// suppressed, with the entry's reason; entries `trust` does not apply are left
// out. Checks `deadline` between findings (AuditTimeout past it). Returns,
// per entry of `config`, whether it matched a finding.
std::vector<bool> apply_suppressions(const SuppressionConfig& config, std::string_view path_prefix,
                                     const SuppressionTrust& trust, Findings& findings,
                                     const AuditDeadline& deadline = {});

// Reads the kernel repository's suppressions (kcheck.toml, or pyproject.toml's
// [tool.kcheck]) into the tree's facts: at the audited root of a tree or source
// audit, above build/ for a variant or module inside one (a config file that
// cannot be used is read as `unusable`, for KC007).
void read_suppression_facts(TreeFacts& tree);

// Marks the findings the tree's suppressions match, leaving out the entries
// `trust` does not apply; judge() calls it after the rules ran.
// Returns, per suppression entry, whether it matched a finding.
std::vector<bool> apply_tree_suppressions(const TreeFacts& tree, const SuppressionTrust& trust, Findings& findings,
                                          const AuditDeadline& deadline = {});

}  // namespace kcheck
