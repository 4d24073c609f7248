#include "checker/harness/compiled_baselines.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <optional>
#include <string_view>

#include "checker/support/bounded_read.h"
#include "checker/support/embedded_files.h"
#include "checker/harness/contained_run.h"
#include "reference/ops/baseline_forms.h"

namespace kcheck {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::array<std::string_view, 4> kCompileModes = {"default", "reduce-overhead", "max-autotune",
                                                           "max-autotune-no-cudagraphs"};

// The op's name in its spec: the benchmark's without the kernel's namespace.
std::string spec_name(const std::string& op) {
  const std::size_t colons = op.rfind("::");
  return colons == std::string::npos ? op : op.substr(colons + 2);
}

std::string case_key(const OpBenchmarkFact& benchmark) {
  return spec_name(benchmark.op) + "|" + benchmark.dtype + "|" + benchmark.size;
}

const std::map<std::string, std::int64_t>* size_named(const OpSpec& spec, const std::string& name) {
  for (const auto& [size_name, size] : spec.sizes)
    if (size_name == name) return &size;
  return nullptr;
}

double number_or_zero(const json& object, const char* key) {
  auto found = object.find(key);
  return found != object.end() && found->is_number() && found->get<double>() >= 0 ? found->get<double>() : 0;
}

std::string string_or_empty(const json& object, const char* key) {
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// The helper's entries by case key (only well-formed ones).
std::map<std::string, const json*> cases_by_key(const json& result) {
  std::map<std::string, const json*> cases;
  if (!result.is_object() || !result.contains("cases") || !result["cases"].is_array()) return cases;
  for (const json& entry : result["cases"])
    if (entry.is_object() && entry.contains("key") && entry["key"].is_string())
      cases.emplace(entry["key"].get<std::string>(), &entry);
  return cases;
}

CompiledBaseline mode_result(const std::string& mode, const json* case_entry, const std::string& unfinished) {
  CompiledBaseline compiled{mode, 0, 0, 0, unfinished};
  if (!case_entry) return compiled;
  if (std::string problem = string_or_empty(*case_entry, "problem"); !problem.empty()) {
    compiled.problem = problem;
    return compiled;
  }
  const json modes = case_entry->value("modes", json::array());
  if (!modes.is_array()) return compiled;
  for (const json& entry : modes) {
    if (!entry.is_object() || string_or_empty(entry, "mode") != mode) continue;
    compiled.median_us = number_or_zero(entry, "median_us");
    compiled.spread_us = number_or_zero(entry, "spread_us");
    compiled.compile_seconds = number_or_zero(entry, "compile_seconds");
    compiled.problem = string_or_empty(entry, "problem");
    if (compiled.problem.empty() && !(compiled.median_us > 0)) compiled.problem = "the helper reported no timing";
    if (compiled.problem.empty()) {
      compiled.paired_median_us = number_or_zero(entry, "paired_median_us");
      compiled.paired_spread_us = number_or_zero(entry, "paired_spread_us");
      compiled.paired_problem = string_or_empty(entry, "paired_problem");
      if (compiled.paired_problem.empty() && !(compiled.paired_median_us > 0))
        compiled.paired_problem = "not timed beside it: the helper reported no timing of the op";
    }
    break;
  }
  return compiled;
}

// Why the helper's run left cases unfinished, from how it ended.
std::string unfinished_reason(const ProcessEnd& end, std::chrono::milliseconds timeout) {
  if (!end.started) return "not timed: cannot start the Python helper: " + end.output;
  if (end.timed_out)
    return "not finished within the torch.compile time bound (" +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(timeout).count()) + " s, --compile-timeout)";
  const std::string tail = last_output_lines(end.output);
  if (end.signal) return "not timed: the Python helper was ended by " + describe_signal(end.signal);
  return "not timed: the Python helper exited with status " + std::to_string(end.exit_code) +
         (tail.empty() ? std::string() : ": " + tail);
}

}  // namespace

bool known_compile_mode(const std::string& mode) {
  return std::find(kCompileModes.begin(), kCompileModes.end(), mode) != kCompileModes.end();
}

json compile_plan(const std::vector<OpBenchmarkFact>& benchmarks, const OpSpecSet& specs,
                  const CompilePlanSettings& settings) {
  // With no torch.compile mode, only the repository's own baselines: the worker cannot time those.
  const bool own_only = settings.modes.empty();
  json cases = json::array();
  for (const OpBenchmarkFact& benchmark : benchmarks) {
    const OpSpec* spec = specs.find(spec_name(benchmark.op));
    if (!spec || !(benchmark.median_us > 0)) continue;
    const bool own = spec->baseline_kind != worker::ReferenceKind::builtin;
    const reference::BaselineForm* form = own ? nullptr : reference::find_baseline_form(spec->baseline);
    const std::map<std::string, std::int64_t>* size = size_named(*spec, benchmark.size);
    auto tolerance = spec->tolerance.find(benchmark.dtype);
    if ((!form && !own) || !size || tolerance == spec->tolerance.end()) continue;
    if (own_only && !own) continue;
    json entry = {
        {"key", case_key(benchmark)},
        {"op", benchmark.op},
        {"dtype", benchmark.dtype},
        {"sizes", *size},
        {"args", concrete_args(*spec, *size)},
        {"buffer_sets", std::clamp(benchmark.buffer_sets, 1, 64)},
        {"output_placements", std::clamp(benchmark.output_placements, 1, std::clamp(benchmark.buffer_sets, 1, 64))},
        {"seed", settings.seed % (1ull << 53)},
        {"rtol", tolerance->second.rtol},
        {"atol", tolerance->second.atol}};
    if (form)
      entry["expression"] = form->expression;
    else if (spec->baseline_kind == worker::ReferenceKind::expression)
      entry["expression"] = spec->baseline;
    else
      entry["python"] = spec->baseline.substr(7);  // FILE:FUNCTION
    if (own) entry["own_baseline"] = spec->baseline;
    cases.push_back(std::move(entry));
  }
  return {{"backend", settings.backend},
          {"samples", settings.samples},
          {"target_sample_seconds", settings.target_sample_seconds},
          {"modes", settings.modes},
          {"repository", settings.repository},
          {"evaluator", settings.evaluator},
          {"library", settings.library},
          {"cases", cases}};
}

void merge_compiled_result(const json& result, const json& plan, const std::string& unfinished,
                           std::vector<OpBenchmarkFact>& benchmarks) {
  std::map<std::string, const json*> reported = cases_by_key(result);
  std::vector<std::string> modes = plan.at("modes").get<std::vector<std::string>>();
  std::map<std::string, std::string> planned;  // key -> the repository's own baseline, if that
  for (const json& planned_case : plan.at("cases"))
    planned[planned_case.at("key").get<std::string>()] = planned_case.value("own_baseline", "");
  for (OpBenchmarkFact& benchmark : benchmarks) {
    const std::string key = case_key(benchmark);
    if (!planned.contains(key)) {
      if (benchmark.compiled_problem.empty())
        benchmark.compiled_problem = "not timed: the op spec names no baseline kcheck knows";
      continue;
    }
    auto found = reported.find(key);
    const json* entry = found == reported.end() ? nullptr : found->second;
    benchmark.compiled.clear();
    benchmark.eager_python_median_us = entry ? number_or_zero(*entry, "eager_median_us") : 0;
    for (const std::string& mode : modes) benchmark.compiled.push_back(mode_result(mode, entry, unfinished));
    // The repository's own baseline: its eager time is the helper's, from Python.
    if (const std::string& own = planned[key]; !own.empty()) {
      benchmark.eager_median_us = benchmark.eager_python_median_us;
      benchmark.eager_spread_us = entry ? number_or_zero(*entry, "eager_spread_us") : 0;
      benchmark.eager = benchmark.eager_median_us > 0 ? own + " (timed from Python)" : "";
      benchmark.eager_problem =
          benchmark.eager_median_us > 0 ? ""
          : entry && !string_or_empty(*entry, "problem").empty()
              ? string_or_empty(*entry, "problem")
              : "its baseline " + own + " was not timed: " + (unfinished.empty() ? "no result" : unfinished);
    }
  }
}

void time_compiled_baselines(const VariantFacts& variant, const OpSpecSet& specs, const CompilePlanSettings& settings,
                             const HarnessOptions& options, const fs::path& private_scratch, HarnessFacts& facts) {
  auto say_for_all = [&facts, &specs](const std::string& why) {
    for (OpBenchmarkFact& benchmark : facts.benchmarks) {
      benchmark.compiled_problem = why;
      const OpSpec* spec = specs.find(spec_name(benchmark.op));
      if (spec && spec->baseline_kind != worker::ReferenceKind::builtin && benchmark.eager.empty())
        benchmark.eager_problem = "its baseline " + spec->baseline + " is timed from Python, and was " + why;
    }
  };
  if (settings.modes.empty()) say_for_all("not timed: --compile none");
  if (options.python.empty()) return say_for_all("not timed: no Python with Torch given (--python)");
  const PrivateScratch scratch(private_scratch);
  CompilePlanSettings plan_settings = settings;
  plan_settings.evaluator = (scratch.path() / "reference_runner.py").string();
  const json plan = compile_plan(facts.benchmarks, specs, plan_settings);
  if (plan["cases"].empty()) {
    if (!settings.modes.empty()) merge_compiled_result(json::object(), plan, "", facts.benchmarks);
    return;
  }
  const std::optional<std::string_view> helper = find_embedded_file("checker/harness/compile_baselines.py");
  const std::optional<std::string_view> evaluator = find_embedded_file("checker/harness/reference_runner.py");
  if (!helper || !evaluator) return say_for_all("not timed: this kcheck was built without its torch.compile helper");
  std::ofstream(plan_settings.evaluator, std::ios::binary) << *evaluator;

  const fs::path plan_path = scratch.path() / "compile-plan.json";
  std::ofstream(plan_path, std::ios::binary) << plan.dump();
  ProcessLimits limits = contained_limits(variant, options, options.compile_timeout, scratch.path());
  limits.result_channel = true;  // descriptor 3: no file the compiled code can reach is read as the result
  limits.max_result = kMaxParsedFileBytes;
  const ProcessEnd end =
      run_bounded({options.python.string(), "-c", std::string(*helper), plan_path.string(), "3"}, limits);
  // The helper ran in a Python of the user's choosing: take what parses.
  const json result = end.result ? json::parse(*end.result, nullptr, false) : json();
  if (end.exit_code == 3 && result.is_object() && !string_or_empty(result, "problem").empty())
    return say_for_all("not timed: " + string_or_empty(result, "problem"));
  const bool finished = end.started && !end.timed_out && !end.signal && end.exit_code == 0;
  merge_compiled_result(
      result.is_discarded() ? json::object() : result, plan,
      finished ? "the helper finished without reaching it" : unfinished_reason(end, options.compile_timeout),
      facts.benchmarks);
}

}  // namespace kcheck
