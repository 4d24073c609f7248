#include "checker/core/bounded_process.h"
#include "checker/harness/rules/harness_rule_factories.h"

namespace kcheck {
namespace {

class CrashOrHang final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!was_run(variant)) continue;
      const HarnessFacts& facts = *variant.harness;
      const std::string phase = facts.loaded ? "after loading " : "while loading ";
      if (facts.worker.timed_out)
        sink.report(harness_place(variant), "the worker hung " + phase + facts.module_relative_path +
                                                " and was killed at the timeout" + output_excerpt(facts.worker));
      else if (facts.loaded && facts.worker.signal != 0)
        sink.report(harness_place(variant), "the worker died of " + describe_signal(facts.worker.signal) + " " +
                                                phase + facts.module_relative_path + output_excerpt(facts.worker));
      else if (facts.loaded && facts.worker.exit_code != 0)
        sink.report(harness_place(variant), "the worker ended with exit status " +
                                                std::to_string(facts.worker.exit_code) + " " + phase +
                                                facts.module_relative_path + output_excerpt(facts.worker));
    }
  }

 private:
  RuleInfo info_{"KD003", "An op or the module crashed or hung", Severity::error,
                 R"(Each variant runs in its own worker process with a timeout. This rule
flags a worker that did not end on its own in time (an infinite loop, a
deadlock, an endless stream of output while loading) and one that a signal
ended once the module was loaded. Such a kernel hangs or kills the user's
Python process.

Fix: run the op under a debugger or sanitizer; do not block or loop in
static initialisers.
)",
      R"ex(static int x = [] { for (;;) {} return 0; }();)ex",
      R"ex(// nothing that can block or spin at load time or in an op
static int x = 0;)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_kd003_crash_or_hang() { return std::make_unique<CrashOrHang>(); }

}  // namespace kcheck
