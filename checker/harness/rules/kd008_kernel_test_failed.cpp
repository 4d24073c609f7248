#include <map>
#include <vector>

#include "checker/harness/rules/harness_rule_support.h"
#include "checker/harness/rules/harness_rule_table.h"

namespace kcheck {
namespace {

class KernelTestFailed final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!variant.harness || !variant.harness->tests) continue;
      const TestSuiteFact& suite = *variant.harness->tests;
      const Place place = harness_place(variant);
      if (!suite.cannot_start.empty()) {
        sink.report(place, "the kernel's tests (" + suite.directory + ") did not run: " + suite.cannot_start);
        continue;
      }
      report_failures(suite, place, sink);
    }
  }

 private:
  // One finding per failed test; when more than kMostAlike tests fail with
  // the same message (a suite that needs a device this machine lacks), one
  // finding for all of them, naming the first and the count.
  static constexpr std::size_t kMostAlike = 3;

  static void report_failures(const TestSuiteFact& suite, const Place& place, FindingSink& sink) {
    std::map<std::string, std::vector<const TestCaseFact*>> by_message;
    std::vector<std::string> order;
    for (const TestCaseFact& test : suite.cases) {
      if (test.outcome != "failed" && test.outcome != "error") continue;
      auto& alike = by_message[test.message];
      if (alike.empty()) order.push_back(test.message);
      alike.push_back(&test);
    }
    for (const std::string& message : order) {
      const std::vector<const TestCaseFact*>& alike = by_message.at(message);
      const std::string said = message.empty() ? "" : ": " + message;
      if (alike.size() > kMostAlike) {
        Place at_test = place;
        at_test.location.symbol = alike.front()->id;
        sink.report(at_test, std::to_string(alike.size()) + " tests failed alike, the first " + alike.front()->id +
                                 said + " (every test is in the report)");
        continue;
      }
      for (const TestCaseFact* test : alike) {
        Place at_test = place;
        at_test.location.symbol = test->id;
        sink.report(at_test, "test " + test->id + (test->outcome == "error" ? " errored" : " failed") + said);
      }
    }
  }

  RuleInfo info_{"KD008",
                 "A test of the kernel's own suite failed against the variant",
                 Severity::error,
                 R"(`kcheck run --tests [DIR]` runs the kernel's own pytest suite (default: the
repository's `tests/`) against each variant that loaded, inside the same
containment as the worker, with the variant importable under the kernel's
package name. A CPU variant's tests see no GPU (CUDA_VISIBLE_DEVICES and
HIP_VISIBLE_DEVICES empty), so a test that picks `cuda` when one is present
tests the CPU build on the CPU; a test that asks for the GPU anyway and
fails with Torch's "No CUDA GPUs are available" tested nothing of the CPU
variant: it is recorded as skipped, saying so. Each failed or erroring test is a finding naming the test id
and the assertion's message (more than three tests that fail with the same
message are one finding with their count); a suite that cannot start (no pytest in the
Python given, a collection error, no test collected) is one finding saying
why, never a pass. Every test's outcome is in the report.

Fix: reproduce with `python -m pytest TEST_ID` against the build
(`kernels.get_local_kernel`), and fix the kernel or the test.
)",
                 R"ex(def test_scale():
    assert torch.equal(ops.scale(x, 2.0), x * 3)  # wrong expectation, or a wrong kernel)ex",
                 R"ex(def test_scale():
    assert torch.equal(ops.scale(x, 2.0), x * 2))ex",
                 0,
                 RuleNeeds::kernel_run};
};

}  // namespace

std::unique_ptr<Rule> make_kd008_kernel_test_failed() { return std::make_unique<KernelTestFailed>(); }

}  // namespace kcheck
