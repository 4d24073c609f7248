// torch.compile baselines for `kcheck bench`: the op spec's baseline
// expression (reference/ops/baseline_forms.cpp) compiled in each mode the
// user asked for and timed like the kernel, by a Python helper
// (compile_baselines.py, embedded) that kcheck starts contained after the
// worker: kcheck itself never links Torch.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/process/bounded_process.h"
#include "checker/facts/tree_facts.h"
#include "checker/harness/harness.h"
#include "checker/kinds/harness_facts.h"
#include "checker/harness/op_spec.h"

namespace kcheck {

// The torch.compile modes `--compile` accepts.
bool known_compile_mode(const std::string& mode);

// What the helper is asked: one case per timed benchmark whose op spec names
// a baseline, keyed "op|dtype|size". The expressions come from kcheck's own
// table, never from the worker's output.
struct CompilePlanSettings {
  std::string backend;
  std::uint64_t seed = 0;
  int samples = 30;
  double target_sample_seconds = 2e-3;
  std::vector<std::string> modes;
  std::string repository;  // absolute: where a python:FILE:FUNCTION baseline's FILE is
  std::string evaluator;   // kcheck's reference_runner.py as written for the helper
  std::string library;     // absolute: the variant's native module, which the helper times beside each mode
};
nlohmann::json compile_plan(const std::vector<OpBenchmarkFact>& benchmarks, const OpSpecSet& specs,
                            const CompilePlanSettings& settings);

// Puts the helper's result into each planned benchmark: one entry per mode,
// those it never reached saying `unfinished` (the time bound ran out, the
// helper crashed). `result` may be anything: the helper ran a Python of the
// user's choosing.
void merge_compiled_result(const nlohmann::json& result, const nlohmann::json& plan, const std::string& unfinished,
                           std::vector<OpBenchmarkFact>& benchmarks);

// Runs the helper for `variant`'s benchmarks in options.python, contained,
// with `private_scratch` its only writable directory, and fills each
// benchmark's `compiled` (or `compiled_problem` when none could be tried).
void time_compiled_baselines(const VariantFacts& variant, const OpSpecSet& specs, const CompilePlanSettings& settings,
                             const HarnessOptions& options, const std::filesystem::path& private_scratch,
                             HarnessFacts& facts);

}  // namespace kcheck
