#pragma once
#include <filesystem>

#include "checker/core/audit_options.h"
#include "checker/facts/file_facts_cache.h"
#include "checker/core/policy.h"
#include "checker/core/report.h"
#include "checker/core/rule_registry.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {

// Every rule kcheck knows, from each analyser's add_*_rules().
RuleRegistry make_rule_registry();

// Finds the tree behind `input` and computes every analyser's facts once,
// in parallel across files. Throws InputError when the input cannot be read,
// AuditTimeout when options.deadline passes.
// With a `cache`, each file's facts and SHA-256 are taken from it when known
// and offered to it when computed (`kcheck scan`).
TreeFacts collect_facts(const std::filesystem::path& input, const AuditOptions& options,
                        FileFactsCache* cache = nullptr);

// The facts of a kernel source tree: its build.toml only (`kcheck config`).
TreeFacts collect_source_facts(const std::filesystem::path& kernel_dir);

// Runs the selected rules over the facts and assembles the report.
Report judge(const TreeFacts& tree, const Policy& policy, const AuditOptions& options, const RuleRegistry& rules);

// collect_facts + judge.
Report run_audit(const std::filesystem::path& input, const Policy& policy, const AuditOptions& options,
                 const RuleRegistry& rules);

}  // namespace kcheck
