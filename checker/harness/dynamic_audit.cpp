#include "checker/harness/dynamic_audit.h"

#include "checker/audit/audit.h"

namespace kcheck {

Report run_dynamic_audit(const std::filesystem::path& input, const Policy& policy, AuditOptions options,
                         const RuleRegistry& rules, const HarnessOptions& harness) {
  if (options.selection.select.empty()) {
    options.selection.select = {"KD", "KO006"};
    if (harness.bench) options.selection.select.emplace_back("KB");
  }
  TreeFacts tree = collect_facts(input, options, rules);
  run_harness(tree, harness);
  Report report = judge(tree, policy, options, rules);
  report.dynamic = dynamic_results(tree);
  return report;
}

}  // namespace kcheck
