#pragma once
// The harness family (KD, KB): the dynamic facts of `kcheck run` and `kcheck bench`.
// The family's registration table: one line per rule, in code order. A rule is
// its file rules/<code>_<what>.cpp, which defines the factory this line names
// (`make_<code>_<what>`), and this line (scripts/new-rule.py writes both).
#include "checker/core/rule_table.h"

#define KCHECK_HARNESS_RULES(RULE)  \
  RULE(kb001_benchmark_result)      \
  RULE(kb002_benchmark_regression)  \
  RULE(kd001_load_failure)          \
  RULE(kd002_wrong_result)          \
  RULE(kd003_crash_or_hang)         \
  RULE(kd004_no_kernel_for_backend) \
  RULE(kd005_variant_not_runnable)  \
  RULE(kd006_python_import_fails)   \
  RULE(kd007_op_not_verified)       \
  RULE(kd008_kernel_test_failed)    \
  RULE(kd009_unsupported_dtype)

namespace kcheck {

KCHECK_HARNESS_RULES(KCHECK_DECLARE_RULE_FACTORY)

inline constexpr RuleFactory kHarnessRules[] = {KCHECK_HARNESS_RULES(KCHECK_RULE_FACTORY_ENTRY)};

}  // namespace kcheck
