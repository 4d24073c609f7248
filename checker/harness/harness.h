#pragma once
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "checker/core/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/progress.h"
#include "checker/core/report.h"
#include "checker/core/rule_registry.h"
#include "checker/core/tree_facts.h"
#include "checker/core/version.h"

namespace kcheck {

// How `kcheck run` runs variants.
struct HarnessOptions {
  std::filesystem::path worker = default_worker_path();  // kcheck_worker
  std::chrono::milliseconds timeout{60000};              // per variant
  std::size_t max_output = 64 * 1024;                    // per worker, tail kept
  std::filesystem::path scratch_dir;                     // result files; default: a temporary directory
  ProgressSink* progress = nullptr;                      // counts variants run

  static std::filesystem::path default_worker_path();
};

// The libtorch the worker was built against, as the worker itself reports it.
struct LocalTorch {
  bool available = false;
  std::string problem;  // why not
  Version version;      // 2.11.0
  std::string version_text;
  bool cxx11_abi = true;
  std::vector<std::string> backends;  // "cpu", ...
};
LocalTorch query_local_torch(const HarnessOptions& options);

// Why `variant` cannot run against `torch` here ("" when it can).
std::string why_not_runnable(const VariantFacts& variant, const LocalTorch& torch);

// Fills every compiled variant's `harness` facts: one worker process per
// variant, each bounded by the timeout; a variant that cannot run here gets
// `skipped_because`. Variants without a native module are left alone.
void run_harness(TreeFacts& tree, const HarnessOptions& options);

// collect_facts + run_harness + judge: what `kcheck run` does. Selects the
// dynamic rules (KD, KO006) unless the options select others.
Report run_dynamic_audit(const std::filesystem::path& input, const Policy& policy, AuditOptions options,
                         const RuleRegistry& rules, const HarnessOptions& harness);

}  // namespace kcheck
