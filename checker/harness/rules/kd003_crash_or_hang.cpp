#include "checker/kinds/process_end.h"
#include "checker/harness/rules/harness_rule_support.h"
#include "checker/harness/rules/harness_rule_table.h"

namespace kcheck {
namespace {

// The contained process: kcheck_worker, or Python importing a Python-only variant.
std::string process_name(const HarnessFacts& facts) { return facts.python_only ? "the Python import" : "the worker"; }

// "ns::op" from "ns::op float16 7x258 (reference)".
std::string running_op(const HarnessFacts& facts) { return facts.running.substr(0, facts.running.find(' ')); }

// Processes the module started (a fork, a setsid() daemon) that were still
// running when the worker ended: the containment killed them.
std::string left_running(const HarnessFacts& facts) {
  const int count = facts.worker.leftover_processes;
  return process_name(facts) + " left " + std::to_string(count) + (count == 1 ? " process" : " processes") +
         " running when it ended (forked by " + facts.module_relative_path + ", at load or in an op); kcheck killed " +
         (count == 1 ? "it" : "them");
}

// Files the worker wrote (or removed) in the shared temporary directories,
// which the containment captured instead of the machine.
std::string wrote_outside(const HarnessFacts& facts) {
  const int count = facts.worker.captured_writes;
  return process_name(facts) + " wrote " + std::to_string(count) + (count == 1 ? " file" : " files") +
         " outside its scratch directory (" + facts.worker.first_captured_write + (count > 1 ? ", ..." : "") +
         "), from " + facts.module_relative_path + "; kcheck captured " + (count == 1 ? "it" : "them") + " and threw " +
         (count == 1 ? "it" : "them") + " away";
}

// A writable tmpfs of the hidden view the worker filled: its working
// directory or a shared one (process/sandbox_view.h).
std::string filled(const HarnessFacts& facts) {
  return process_name(facts) + " filled " + facts.worker.full + " (from " + facts.module_relative_path +
         "), which kcheck bounds (--worker-file-size: twice that for its working directory, that for /tmp, /var/tmp "
         "and /dev/shm each); the writes past the bound failed and nothing reached the machine";
}

// Written past the bound where no tmpfs bounds the scratch (the subreaper
// fallback of --no-sandbox): kcheck measured it and stopped the worker.
std::string overflowed(const HarnessFacts& facts) {
  return process_name(facts) + " wrote " + facts.worker.scratch_overflow + " (from " + facts.module_relative_path +
         "; twice --worker-file-size); no tmpfs bounds the scratch without namespaces, so kcheck measured it and "
         "stopped the worker";
}

class CrashOrHang final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!was_run(variant)) continue;
      const HarnessFacts& facts = *variant.harness;
      const std::string phase = !facts.running.empty() ? "in " + facts.running + " "
                                : facts.loaded         ? "after loading "
                                                       : "while loading ";
      Place place = facts.running.empty() ? harness_place(variant) : op_place(variant, running_op(facts));
      if (facts.worker.timed_out)
        sink.report(place, process_name(facts) + " hung " + phase + facts.module_relative_path +
                               " and was killed at the timeout" + output_excerpt(facts.worker));
      else if (!facts.worker.scratch_overflow.empty())
        sink.report(place, overflowed(facts));
      else if (facts.loaded && facts.worker.signal != 0)
        sink.report(place, process_name(facts) + " died of " + describe_signal(facts.worker.signal) + " " + phase +
                               facts.module_relative_path + output_excerpt(facts.worker));
      else if (facts.loaded && facts.worker.exit_code != 0)
        sink.report(place, process_name(facts) + " ended with exit status " + std::to_string(facts.worker.exit_code) +
                               " " + phase + facts.module_relative_path + output_excerpt(facts.worker));
      else if (facts.loaded && facts.ops_planned && !facts.ops_finished)
        sink.report(place, process_name(facts) + " ended with exit status 0 " + phase + facts.module_relative_path +
                               " before its ops were checked (the op calls exit)" + output_excerpt(facts.worker));
      if (facts.worker.leftover_processes > 0) sink.report(harness_place(variant), left_running(facts));
      if (facts.worker.captured_writes > 0) sink.report(harness_place(variant), wrote_outside(facts));
      if (!facts.worker.full.empty()) sink.report(harness_place(variant), filled(facts));
      for (const OpRunFact& op : facts.ops)
        for (const OpCheckFact& check : op.checks) {
          std::string what = op.op + " " + check.dtype + " [" + check.shape + "]";
          if (check.guard_violation) sink.report(op_place(variant, op.op), what + " " + check.problem);
          if (!check.device_error.empty())
            sink.report(op_place(variant, op.op), what + " left the device in an error state: " + check.device_error +
                                                      (check.problem.empty() ? "" : " (" + check.problem + ")"));
        }
    }
  }

 private:
  RuleInfo info_{"KD003",
                 "An op or the module crashed or hung",
                 Severity::error,
                 R"(Each variant runs in its own worker process with a timeout. This rule
flags a worker that did not end on its own in time (an infinite loop, a
deadlock, an endless stream of output while loading) and one that a signal
or `exit` ended once the module was loaded, naming the op call it was in.
It also flags an op that wrote outside its output (the guard regions kcheck
puts around every output changed) and one that left the device in an error
state (a sticky CUDA error such as an illegal address), a worker that
left processes running when it ended (a fork or a `setsid()` daemon that
would outlive the user's Python process), one that wrote outside its
scratch directory (in /tmp, /var/tmp or /dev/shm, where kcheck captures
writes; anywhere else they are refused), and one that filled the bounded
space it may write in (or, without namespaces under --no-sandbox, where no
file system bounds it, wrote more into its scratch directory than that bound:
kcheck measures it every 0.2 s and stops the worker). Such a kernel hangs, corrupts
memory, kills the user's Python process or leaves work running behind it.

Fix: run the op under a debugger or sanitizer; do not block or loop in
static initialisers.
)",
                 R"ex(static int x = [] { for (;;) {} return 0; }();)ex",
                 R"ex(// nothing that can block or spin at load time or in an op
static int x = 0;)ex",
                 0,
                 RuleNeeds::kernel_run,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_kd003_crash_or_hang() { return std::make_unique<CrashOrHang>(); }

}  // namespace kcheck
