#include "checker/core/run_results.h"

#include <algorithm>

namespace kcheck {

int DynamicResults::ops_verified() const {
  return static_cast<int>(std::count_if(ops.begin(), ops.end(), [](const OpVerification& op) { return op.verified; }));
}

const CompiledBaseline* fastest_timed(const std::vector<CompiledBaseline>& compiled) {
  const CompiledBaseline* fastest = nullptr;
  for (const CompiledBaseline& mode : compiled)
    if (mode.timed() && (!fastest || mode.median_us < fastest->median_us)) fastest = &mode;
  return fastest;
}

bool BenchmarkResult::python_call_bound() const {
  if (!(eager_median_us > 0)) return false;
  if (eager_python_median_us > 1.2 * eager_median_us) return true;
  const CompiledBaseline* fastest = fastest_timed(compiled);
  return fastest && fastest->median_us > 1.2 * std::max(eager_median_us, eager_python_median_us);
}

}  // namespace kcheck
