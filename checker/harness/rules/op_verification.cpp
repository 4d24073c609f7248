#include "checker/harness/rules/op_verification.h"

#include <algorithm>
#include <set>

namespace kcheck {
namespace {

const OpRunFact* run_of(const HarnessFacts& facts, const std::string& op) {
  for (const OpRunFact& run : facts.ops)
    if (run.op == op) return &run;
  return nullptr;
}

bool called_by_tests(const HarnessFacts& facts, const std::string& op) {
  if (!facts.tests) return false;
  const std::vector<std::string>& called = facts.tests->ops_called;
  return std::find(called.begin(), called.end(), op) != called.end();
}

std::string joined(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// An op checked against a reference: the cases it computed, the dtypes it
// refused, and why it counts as not verified when no case ran.
void judge_reference_checks(const OpRunFact& run, OpVerification& op) {
  op.how = "reference";
  op.reference = run.reference;
  std::set<std::string> refused, computed;
  std::string reference_problem;
  int uncompared = 0;
  for (const OpCheckFact& check : run.checks) {
    if (check.unsupported) {
      refused.insert(check.dtype);
    } else if (!check.reference_problem.empty()) {
      if (reference_problem.empty()) reference_problem = check.reference_problem;
      ++uncompared;
    } else {
      ++op.cases_run;
      op.cases_passed += check.passed ? 1 : 0;
      computed.insert(check.dtype);
    }
  }
  for (const std::string& dtype : refused)
    if (!computed.contains(dtype)) op.unsupported_dtypes.push_back(dtype);
  // Every case the op did not refuse must have been compared: a reference
  // that fails exactly where the kernel is wrong must not leave it verified.
  op.verified = op.cases_run > 0 && uncompared == 0;
  if (op.verified) return;
  if (uncompared > 0 && op.cases_run > 0)
    op.why = std::to_string(uncompared) + " of its " + std::to_string(uncompared + op.cases_run) +
             " cases were not compared: " + reference_problem;
  else if (!reference_problem.empty())
    op.why = "its reference gave no expected outputs: " + reference_problem;
  else if (!refused.empty())
    op.why = "it refused every dtype its spec lists (" + joined(refused) + ")";
  else {
    op.why = "none of its cases ran: the device failed before them";
    op.reported_as = "KD003";
  }
}

OpVerification verification_of(const VariantFacts& variant, const HarnessFacts& facts, const DispatcherOp& registered) {
  OpVerification op;
  op.variant = variant.directory_name;
  op.op = registered.name;
  op.how = "none";
  const OpRunFact* run = run_of(facts, registered.name);
  if (run) {
    op.schema = run->schema;
    op.dispatch_keys = run->dispatch_keys;
  }
  const bool tested = called_by_tests(facts, registered.name);
  if (run && !run->spec.empty()) judge_reference_checks(*run, op);
  if (!op.verified && tested) {
    op.how = "tests";
    op.verified = true;
    op.why.clear();
  }
  if (op.verified || !op.why.empty()) return op;
  if (facts.python_only)
    op.why =
        "it is registered from Python (a Python-only variant), and kcheck's worker runs the ops of native "
        "modules only; the kernel's own tests can verify it (kcheck run --tests)";
  else if (!facts.ops_planned)
    op.why = "kcheck ran no op (the plan was not asked for)";
  else if (!run && facts.ops_finished)
    op.why = "the worker did not call it";
  else if (!run) {
    op.why = "the worker ended before it was called";
    op.reported_as = "KD003";
  } else if (!run->has_kernel) {
    op.why = "it has no kernel for the variant's backend";
    op.reported_as = "KD004";
  } else if (run->smoke_called) {
    op.how = "smoke";
    op.why = run->schema_problem.empty()
                 ? "no reference: no built-in op spec of that name and no entry in the repository's kcheck-ops.toml; "
                   "it was only called once on made-up inputs"
                 : "the built-in op spec of that name does not fit it (" + run->schema_problem +
                       "); it was only called once on made-up inputs";
  } else {
    op.why = "it was not called";
  }
  return op;
}

}  // namespace

std::vector<OpVerification> op_verifications(const VariantFacts& variant) {
  std::vector<OpVerification> ops;
  if (!variant.harness || !variant.harness->loaded) return ops;
  for (const DispatcherOp& registered : variant.harness->new_ops)
    ops.push_back(verification_of(variant, *variant.harness, registered));
  return ops;
}

VariantRun variant_run(const VariantFacts& variant) {
  VariantRun run;
  run.variant = variant.directory_name;
  const HarnessFacts& facts = *variant.harness;
  if (!facts.skipped_because.empty())
    run.reason = "not run here: " + facts.skipped_because;
  else if (!facts.harness_problem.empty())
    run.reason = "not judged: " + facts.harness_problem;
  else if (!facts.worker.started)
    run.reason = facts.python_only ? "Python did not start" : "the worker did not start";
  else if (!facts.loaded)
    run.reason = facts.load_error.empty() ? "it did not load (KD001, KD003)" : "it did not load: " + facts.load_error;
  else if (!facts.run_problem.empty())
    run.reason = "loaded, but its ops were not run: " + facts.run_problem;
  else if (facts.ops_planned && !facts.ops_finished)
    run.reason = "the worker ended before its ops were all run (KD003)";
  run.ran = run.reason.empty();
  run.python = facts.python;
  run.torch = facts.torch_version;
  run.worker = facts.worker_key;
  for (const OpVerification& op : op_verifications(variant)) {
    ++run.ops_registered;
    run.ops_verified += op.verified ? 1 : 0;
  }
  return run;
}

}  // namespace kcheck
