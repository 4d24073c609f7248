#pragma once
#include <optional>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/rule_registry.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {

// The policy and options an audit judges with once the repository's
// kcheck.toml settings (policy, select, ignore codes, strict) are applied
// where the caller said nothing: its --policy and --select win, its --ignore
// codes add to the repository's, --strict or `strict = true` is strict. Under
// --security or --no-repo-config nothing is applied (KC007 reports each
// setting); an `ignore` code wider than one rule only where the policy allows
// prefixes; a code that names no rule is left out (KC007 reports it).
struct SettledAudit {
  std::optional<Policy> repository_policy;  // the repository's policy, when applied
  AuditOptions options;
  const Policy& policy(const Policy& given) const { return repository_policy ? *repository_policy : given; }
};
SettledAudit settle_repository_settings(const TreeFacts& tree, const Policy& policy, const AuditOptions& options,
                                        const RuleRegistry& rules);

// The policy an audit of the repository judges with, by the same decision,
// from the configuration read with its sources (collect_source_facts): what
// `kcheck build` pins its variants against, so the build and its self-audit
// agree. Throws PolicyError (naming the config's file and line) where the
// repository names a policy that cannot be used.
Policy policy_for_repository(const TreeFacts& source, const Policy& given, const AuditOptions& options);

}  // namespace kcheck
