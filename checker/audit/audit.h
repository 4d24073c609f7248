#pragma once
#include <filesystem>

#include "checker/audit/audit_options.h"
#include "checker/facts/file_facts_cache.h"
#include "checker/core/policy.h"
#include "checker/core/report.h"
#include "checker/core/rule_registry.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {

// Every rule kcheck knows, from each family's table (checker/<family>/rules/<family>_rule_table.h).
RuleRegistry make_rule_registry();

// Finds the tree behind `input` and computes every analyser's facts once,
// in parallel across files: those every audit needs, and the optional ones
// the rules `options.selection` selects read (RuleInfo::reads). Throws InputError when the input cannot be read,
// AuditTimeout when options.deadline passes.
// With a `cache`, each file's facts and SHA-256 are taken from it when known
// and offered to it when computed (`kcheck scan`).
TreeFacts collect_facts(const std::filesystem::path& input, const AuditOptions& options, const RuleRegistry& rules,
                        FileFactsCache* cache = nullptr);

// The facts of a kernel source tree: its build.toml only (`kcheck config`).
TreeFacts collect_source_facts(const std::filesystem::path& kernel_dir);

// What can be checked of a kernel source repository before any build
// (`kcheck check` where there is a build.toml and no build/): build.toml,
// the Python package's sources (a variant of each backend, named
// `torch-ext/<name> (<backend>)`, so the KP and KO rules judge them as they
// will be shipped) and the op registrations of the C++ sources build.toml
// lists. Bounded as an audit of a build is.
TreeFacts collect_source_audit_facts(const std::filesystem::path& kernel_dir, const AuditOptions& options,
                                     const RuleRegistry& rules);

// Runs the selected rules over the facts and assembles the report.
Report judge(const TreeFacts& tree, const Policy& policy, const AuditOptions& options, const RuleRegistry& rules);

// A kernel source repository not built yet: a directory holding build.toml
// and no build/.
bool is_source_repository(const std::filesystem::path& input);

// collect_source_audit_facts + judge, whether or not there is a build/.
Report run_source_audit(const std::filesystem::path& kernel_dir, const Policy& policy, const AuditOptions& options,
                        const RuleRegistry& rules);

// collect_facts + judge: what was built (a repository without build/ is KL001),
// never only its sources, whatever it holds: an upload's audit.
Report run_audit_of_build(const std::filesystem::path& input, const Policy& policy, const AuditOptions& options,
                          const RuleRegistry& rules);

// collect_facts (collect_source_audit_facts for a source repository) + judge.
Report run_audit(const std::filesystem::path& input, const Policy& policy, const AuditOptions& options,
                 const RuleRegistry& rules);

}  // namespace kcheck
