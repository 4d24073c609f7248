#include "checker/kinds/process_end.h"
#include "checker/harness/rules/harness_rule_support.h"
#include "checker/harness/rules/harness_rule_table.h"

namespace kcheck {
namespace {

class LoadFailure final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!was_run(variant)) continue;
      const HarnessFacts& facts = *variant.harness;
      // A hang, and a stop for writing past the scratch bound, are KD003.
      if (facts.loaded || facts.worker.timed_out || !facts.worker.scratch_overflow.empty()) continue;
      // A Python-only variant's load is the import of its package.
      const std::string loading = facts.python_only ? "importing the Python-only variant's package (__init__.py)"
                                                    : "loading " + facts.module_relative_path;
      const std::string initialiser = facts.python_only ? "its import-time code" : "a static initialiser";
      std::string message;
      if (!facts.load_error.empty())
        message = loading + " failed: " + facts.load_error;
      else if (facts.worker.signal != 0)
        message = loading + " killed the process with " + describe_signal(facts.worker.signal) + " (" + initialiser +
                  " crashed or aborted)";
      else if (facts.worker.exit_code == 0)
        message =
            loading + " ended the process with exit status 0 before the load finished (" + initialiser + " calls exit)";
      else
        message = loading + " ended the process with exit status " + std::to_string(facts.worker.exit_code) +
                  " before the load finished";
      sink.report(harness_place(variant), message + output_excerpt(facts.worker));
    }
  }

 private:
  RuleInfo info_{"KD001",
                 "The native module cannot be loaded in a matching Torch",
                 Severity::error,
                 R"(`kcheck run` loads each variant's native module in its own worker process
(kcheck_worker, linked with the local libtorch) exactly as Python would:
`dlopen` with libpython's symbols available, after libtorch. This rule flags
a module whose load fails: a missing library or undefined symbol (the
loader's message is quoted), or a static initialiser that crashes, aborts or
calls `exit`. Users would see the same failure on `import`, or lose their
whole Python process. A Python-only variant (no native module) is loaded by
importing its package through Python (`--python`), contained the same way;
an import that raises or exits is this finding, with the traceback's last line.

Fix: reproduce with `python -c "import torch; import <package>"`, link the
missing library or define the symbol, and keep static initialisers to
operator registration (TORCH_LIBRARY) without side effects.
)",
                 R"ex(static int x = (std::abort(), 0);   // in any translation unit of the module)ex",
                 R"ex(// no work in static initialisers; do it on the first call instead
static int& x() { static int value = compute(); return value; })ex",
                 0,
                 RuleNeeds::kernel_run,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_kd001_load_failure() { return std::make_unique<LoadFailure>(); }

}  // namespace kcheck
