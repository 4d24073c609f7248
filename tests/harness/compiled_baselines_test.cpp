// torch.compile baselines of `kcheck bench` (checker/harness/compiled_baselines.h):
// the helper's plan, reading back whatever it wrote, how a helper that cannot
// run or runs out of time is reported, and KB001's note. The helper itself
// compiling on the CPU is tested by check_dynamic_report.py (harness_reference_bench_relu).
#include "checker/harness/compiled_baselines.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "checker/audit/audit.h"
#include "reference/ops/baseline_forms.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* kSpecs = R"toml(
[defaults]
dtypes = ["float32", "bfloat16"]
[defaults.sizes]
small = { n = 3, d = 5 }
[defaults.tolerance]
float32 = { rtol = 1e-5, atol = 1e-6 }
bfloat16 = { rtol = 1e-2, atol = 2e-2 }

[[op]]
name = "fatrelu_and_mul"
schema = "fatrelu_and_mul(Tensor! out, Tensor input, float threshold) -> ()"
reference = "fatrelu_and_mul"
baseline = "fatrelu_and_mul"
args = [
  { name = "out", output = true, shape = ["n", "d"] },
  { name = "input", shape = ["n", "2*d"], range = [-4.0, 4.0] },
  { name = "threshold", value = 0.5 },
]
bytes = ["out", "input"]

[[op]]
name = "no_baseline"
schema = "no_baseline(Tensor! out, Tensor input) -> ()"
reference = "relu"
args = [
  { name = "out", output = true, shape = ["n", "d"] },
  { name = "input", shape = ["n", "d"] },
]
bytes = ["out", "input"]
)toml";

OpBenchmarkFact timed(const std::string& op, const std::string& dtype, int buffer_sets = 4) {
  OpBenchmarkFact benchmark;
  benchmark.op = "activation_0a1b2c3::" + op;
  benchmark.dtype = dtype;
  benchmark.size = "small";
  benchmark.shape = "3x10";
  benchmark.median_us = 10;
  benchmark.buffer_sets = buffer_sets;
  return benchmark;
}

CompilePlanSettings settings() {
  return {"cpu", 7, 5, 1e-3, {"default", "max-autotune-no-cudagraphs"}, "", "", "/variant/_activation.abi3.so"};
}

TEST(CompiledBaselines, ThePlanHoldsKcheckOwnExpressionAndConcreteArguments) {
  const OpSpecSet specs = parse_op_specs(kSpecs, "ops.toml");
  std::vector<OpBenchmarkFact> benchmarks = {timed("fatrelu_and_mul", "bfloat16", 1000),
                                             timed("no_baseline", "float32")};
  benchmarks[0].eager = "__import__('os').system('x')";  // the worker's word is not used
  const json plan = compile_plan(benchmarks, specs, settings());
  EXPECT_EQ(plan["modes"], json({"default", "max-autotune-no-cudagraphs"}));
  EXPECT_EQ(plan["backend"], "cpu");
  ASSERT_EQ(plan["cases"].size(), 1u) << "the op without a baseline is not planned: " << plan.dump();
  const json& planned = plan["cases"][0];
  EXPECT_EQ(planned["key"], "fatrelu_and_mul|bfloat16|small");
  EXPECT_EQ(planned["op"], "activation_0a1b2c3::fatrelu_and_mul") << "the op the helper times beside each mode";
  EXPECT_EQ(plan["library"], "/variant/_activation.abi3.so");
  EXPECT_EQ(planned["expression"], std::string(reference::find_baseline_form("fatrelu_and_mul")->expression));
  EXPECT_EQ(planned["sizes"], json({{"d", 5}, {"n", 3}}));
  EXPECT_EQ(planned["args"][1]["shape"], json({3, 10}));
  EXPECT_EQ(planned["args"][2]["value"], 0.5);
  EXPECT_EQ(planned["buffer_sets"], 64) << "at most 64 sets, whatever the worker said";
  EXPECT_EQ(planned["output_placements"], 1) << "one result block unless the worker wrote several";
  EXPECT_DOUBLE_EQ(planned["atol"].get<double>(), 2e-2);
}

TEST(CompiledBaselines, ThePlanCarriesTheWorkersOutputBlocksAtMostOnePerBufferSet) {
  // The helper rotates the eager and compiled results through as many blocks
  // as the worker's op wrote (compile_baselines.py, output_placements).
  const OpSpecSet specs = parse_op_specs(kSpecs, "ops.toml");
  std::vector<OpBenchmarkFact> benchmarks = {timed("fatrelu_and_mul", "float32", 4),
                                             timed("fatrelu_and_mul", "bfloat16", 2)};
  benchmarks[0].output_placements = 4;
  benchmarks[1].output_placements = 9;  // more blocks than sets: never from the worker, clamped
  const json plan = compile_plan(benchmarks, specs, settings());
  ASSERT_EQ(plan["cases"].size(), 2u) << plan.dump();
  EXPECT_EQ(plan["cases"][0]["output_placements"], 4);
  EXPECT_EQ(plan["cases"][1]["output_placements"], 2) << "at most one block per buffer set";
}

TEST(CompiledBaselines, TheRepositorysOwnBaselineIsPlannedEvenWithoutModesAndGivesTheEagerTime) {
  std::string text = kSpecs;
  text.replace(text.find("reference = \"relu\""), 0, "baseline = \"torch.relu(input)\"\n");
  const OpSpecSet specs = parse_op_specs(text, "ops.toml");
  std::vector<OpBenchmarkFact> benchmarks = {timed("fatrelu_and_mul", "float32"), timed("no_baseline", "float32")};
  CompilePlanSettings eager_only = settings();
  eager_only.modes.clear();
  eager_only.evaluator = "/scratch/reference_runner.py";
  const json plan = compile_plan(benchmarks, specs, eager_only);
  ASSERT_EQ(plan["cases"].size(), 1u) << "without modes only the repository's own baseline: " << plan.dump();
  EXPECT_EQ(plan["cases"][0]["expression"], "torch.relu(input)");
  EXPECT_EQ(plan["cases"][0]["own_baseline"], "torch.relu(input)");
  EXPECT_EQ(plan["evaluator"], "/scratch/reference_runner.py");
  merge_compiled_result({{"cases",
                          {{{"key", "no_baseline|float32|small"},
                            {"eager_median_us", 20.0},
                            {"eager_spread_us", 1.0},
                            {"modes", json::array()}}}}},
                        plan, "", benchmarks);
  EXPECT_EQ(benchmarks[1].eager, "torch.relu(input) (timed from Python)");
  EXPECT_DOUBLE_EQ(benchmarks[1].eager_median_us, 20.0);
  EXPECT_DOUBLE_EQ(benchmarks[1].speedup(), 2.0);
  EXPECT_EQ(benchmarks[1].eager_problem, "");
}

TEST(CompiledBaselines, EveryModeGetsItsTimingOrItsProblem) {
  const OpSpecSet specs = parse_op_specs(kSpecs, "ops.toml");
  std::vector<OpBenchmarkFact> benchmarks = {timed("fatrelu_and_mul", "bfloat16"), timed("fatrelu_and_mul", "float32"),
                                             timed("no_baseline", "float32")};
  const json plan = compile_plan(benchmarks, specs, settings());
  const json result = {
      {"cases",
       {{{"key", "fatrelu_and_mul|bfloat16|small"},
         {"eager_median_us", 30.0},
         {"modes",
          {{{"mode", "default"}, {"median_us", 12.5}, {"spread_us", 0.5}, {"compile_seconds", 20.0}, {"problem", ""}},
           {{"mode", "max-autotune-no-cudagraphs"},
            {"median_us", 0},
            {"spread_us", 0},
            {"compile_seconds", 1.0},
            {"problem", "torch.compile failed: RuntimeError: no"}}}}}}}};
  merge_compiled_result(result, plan, "not finished within the torch.compile time bound", benchmarks);

  ASSERT_EQ(benchmarks[0].compiled.size(), 2u);
  EXPECT_EQ(benchmarks[0].compiled[0].mode, "default");
  EXPECT_DOUBLE_EQ(benchmarks[0].compiled[0].median_us, 12.5);
  EXPECT_DOUBLE_EQ(benchmarks[0].compiled[0].compile_seconds, 20.0);
  EXPECT_EQ(benchmarks[0].compiled[1].problem, "torch.compile failed: RuntimeError: no");
  EXPECT_DOUBLE_EQ(benchmarks[0].compile_speedup(), 1.25) << "over the fastest timed mode";
  EXPECT_DOUBLE_EQ(benchmarks[0].eager_python_median_us, 30.0);
  // Planned but never reached: each mode says why.
  ASSERT_EQ(benchmarks[1].compiled.size(), 2u);
  EXPECT_EQ(benchmarks[1].compiled[1].problem, "not finished within the torch.compile time bound");
  EXPECT_DOUBLE_EQ(benchmarks[1].compile_speedup(), 0);
  EXPECT_TRUE(benchmarks[2].compiled.empty());
  EXPECT_EQ(benchmarks[2].compiled_problem, "not timed: the op spec names no baseline kcheck knows");
}

TEST(CompiledBaselines, AnyResultTheHelperWroteIsReadWithoutTrustingIt) {
  const OpSpecSet specs = parse_op_specs(kSpecs, "ops.toml");
  const json plan = compile_plan({timed("fatrelu_and_mul", "bfloat16")}, specs, settings());
  for (const json& result :
       {json(nullptr), json("text"), json::array(), json({{"cases", 3}}), json({{"cases", {1, "x", nullptr}}}),
        json({{"cases", {{{"key", "fatrelu_and_mul|bfloat16|small"}, {"modes", "x"}}}}}),
        json({{"cases",
               {{{"key", "fatrelu_and_mul|bfloat16|small"},
                 {"modes", {{{"mode", "default"}, {"median_us", "fast"}, {"spread_us", -1}}}}}}}})}) {
    std::vector<OpBenchmarkFact> benchmarks = {timed("fatrelu_and_mul", "bfloat16")};
    merge_compiled_result(result, plan, "unfinished", benchmarks);
    ASSERT_EQ(benchmarks[0].compiled.size(), 2u) << result.dump();
    for (const CompiledBaseline& mode : benchmarks[0].compiled) {
      EXPECT_FALSE(mode.timed()) << result.dump();
      EXPECT_FALSE(mode.problem.empty()) << result.dump();
      EXPECT_GE(mode.spread_us, 0) << result.dump();
    }
  }
}

TEST(CompiledBaselines, TheOpTimedBesideEachModeIsReadOrSaysWhyNot) {
  const OpSpecSet specs = parse_op_specs(kSpecs, "ops.toml");
  std::vector<OpBenchmarkFact> benchmarks = {timed("fatrelu_and_mul", "bfloat16")};
  const json plan = compile_plan(benchmarks, specs, settings());
  const json timed_mode = {
      {"mode", "default"}, {"median_us", 12.0}, {"spread_us", 0.5}, {"compile_seconds", 2.0}, {"problem", ""}};
  json paired = timed_mode;
  paired.update({{"paired_median_us", 10.0}, {"paired_spread_us", 0.25}});
  json refused = timed_mode;
  refused["mode"] = "max-autotune-no-cudagraphs";
  refused["paired_problem"] = "not timed beside it: loading the variant's library failed: OSError: x";
  merge_compiled_result({{"cases", {{{"key", "fatrelu_and_mul|bfloat16|small"}, {"modes", {paired, refused}}}}}}, plan,
                        "", benchmarks);
  ASSERT_EQ(benchmarks[0].compiled.size(), 2u);
  const CompiledBaseline& beside = benchmarks[0].compiled[0];
  EXPECT_TRUE(beside.paired());
  EXPECT_DOUBLE_EQ(beside.paired_median_us, 10.0);
  EXPECT_DOUBLE_EQ(beside.paired_spread_us, 0.25);
  EXPECT_DOUBLE_EQ(beside.paired_speedup(), 1.2) << "the mode's median over the op's beside it";
  EXPECT_FALSE(benchmarks[0].compiled[1].paired());
  EXPECT_EQ(benchmarks[0].compiled[1].paired_problem,
            "not timed beside it: loading the variant's library failed: OSError: x");
  EXPECT_DOUBLE_EQ(benchmarks[0].compiled[1].paired_speedup(), 0);

  // A timed mode with no word on the op says so; a mode not timed has nothing to pair.
  json silent = timed_mode;
  json failed = timed_mode;
  failed.update({{"mode", "max-autotune-no-cudagraphs"},
                 {"median_us", 0},
                 {"problem", "torch.compile failed: x"},
                 {"paired_median_us", 5.0}});
  benchmarks = {timed("fatrelu_and_mul", "bfloat16")};
  merge_compiled_result({{"cases", {{{"key", "fatrelu_and_mul|bfloat16|small"}, {"modes", {silent, failed}}}}}}, plan,
                        "", benchmarks);
  EXPECT_EQ(benchmarks[0].compiled[0].paired_problem, "not timed beside it: the helper reported no timing of the op");
  EXPECT_FALSE(benchmarks[0].compiled[1].paired());
  EXPECT_DOUBLE_EQ(benchmarks[0].compiled[1].paired_median_us, 0) << "not read for a mode that was not timed";
  EXPECT_EQ(benchmarks[0].compiled[1].paired_problem, "");
}

// A stand-in for Python: a shell script, so the tests need no Torch.
fs::path fake_python(const std::string& name, const std::string& body) {
  fs::path path = fs::temp_directory_path() / ("kcheck-compiled-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

HarnessFacts facts_with(std::vector<OpBenchmarkFact> benchmarks) {
  HarnessFacts facts;
  facts.benchmarks = std::move(benchmarks);
  return facts;
}

std::string compiled_problems(const HarnessFacts& facts) {
  std::string all;
  for (const OpBenchmarkFact& benchmark : facts.benchmarks) {
    all += "[" + benchmark.compiled_problem;
    for (const CompiledBaseline& mode : benchmark.compiled) all += "|" + mode.mode + ": " + mode.problem;
    all += "]";
  }
  return all;
}

TEST(CompiledBaselines, WithoutPythonOrModesEveryResultSaysWhy) {
  const OpSpecSet specs = parse_op_specs(kSpecs, "ops.toml");
  const fs::path scratch = fs::temp_directory_path() / ("kcheck-compiled-scratch-" + std::to_string(::getpid()));
  HarnessOptions options;
  HarnessFacts facts = facts_with({timed("fatrelu_and_mul", "bfloat16")});
  time_compiled_baselines(VariantFacts{}, specs, settings(), options, scratch, facts);
  EXPECT_EQ(compiled_problems(facts), "[not timed: no Python with Torch given (--python)]");
  CompilePlanSettings none = settings();
  none.modes.clear();
  options.python = "/usr/bin/python3";
  time_compiled_baselines(VariantFacts{}, specs, none, options, scratch, facts);
  EXPECT_EQ(compiled_problems(facts), "[not timed: --compile none]");
}

TEST(CompiledBaselines, APythonWithoutTorchIsNamedAsTheReason) {
  const OpSpecSet specs = parse_op_specs(kSpecs, "ops.toml");
  HarnessOptions options;
  // The real helper in a Python without site-packages: no Torch there.
  options.python = fake_python("no-torch", "exec " KCHECK_SYSTEM_PYTHON " -S \"$@\"");
  // The interpreter the wrapper runs, shown in the sandbox as a probe of it would name it.
  options.visible_paths = {fs::canonical(KCHECK_SYSTEM_PYTHON).parent_path().parent_path()};
  HarnessFacts facts = facts_with({timed("fatrelu_and_mul", "bfloat16")});
  time_compiled_baselines(VariantFacts{}, specs, settings(), options,
                          fs::temp_directory_path() / ("kcheck-compiled-a-" + std::to_string(::getpid())), facts);
  EXPECT_EQ(compiled_problems(facts),
            "[not timed: no usable Torch in this Python for cpu: ModuleNotFoundError: No module named 'torch']");
  fs::remove(options.python);
}

TEST(CompiledBaselines, AHelperOutOfTimeOrCrashingLeavesEachModeSayingSo) {
  const OpSpecSet specs = parse_op_specs(kSpecs, "ops.toml");
  HarnessOptions options;
  options.python = fake_python("sleeps", "sleep 30");
  options.compile_timeout = std::chrono::seconds(1);
  HarnessFacts facts = facts_with({timed("fatrelu_and_mul", "bfloat16")});
  const fs::path scratch = fs::temp_directory_path() / ("kcheck-compiled-b-" + std::to_string(::getpid()));
  time_compiled_baselines(VariantFacts{}, specs, settings(), options, scratch, facts);
  const std::string out_of_time = "not finished within the torch.compile time bound (1 s, --compile-timeout)";
  EXPECT_EQ(compiled_problems(facts),
            "[|default: " + out_of_time + "|max-autotune-no-cudagraphs: " + out_of_time + "]");
  fs::remove(options.python);

  options.python = fake_python("crashes", "echo 'Segmentation fault in inductor' >&2; exit 139");
  facts = facts_with({timed("fatrelu_and_mul", "bfloat16")});
  time_compiled_baselines(VariantFacts{}, specs, settings(), options, scratch, facts);
  const std::string crashed = "not timed: the Python helper exited with status 139: Segmentation fault in inductor";
  EXPECT_EQ(compiled_problems(facts), "[|default: " + crashed + "|max-autotune-no-cudagraphs: " + crashed + "]");
  fs::remove(options.python);
  EXPECT_FALSE(fs::exists(scratch)) << "the private scratch is removed";
}

// Marked when Python's per-call cost, not the device, likely sets the compiled timing.
TEST(CompiledBaselines, CallBoundWhenPythonSlowsEagerOrCompiledIsSlowerThanEager) {
  BenchmarkResult result;
  result.eager_median_us = 10;
  result.eager_python_median_us = 11;
  result.compiled = {CompiledBaseline{"default", 11.5, 0.1, 3, ""}};
  EXPECT_FALSE(result.python_call_bound()) << "within 1.2x of eager both ways";
  result.eager_python_median_us = 12.5;
  EXPECT_TRUE(result.python_call_bound()) << "eager from Python above 1.2x its C++ time";
  result.eager_python_median_us = 9;
  result.compiled = {CompiledBaseline{"default", 70.9, 0.1, 3, ""},
                     CompiledBaseline{"max-autotune", 0, 0, 0, "failed"}};
  EXPECT_TRUE(result.python_call_bound()) << "compiled 7x slower than the same expression eager";
  result.compiled = {CompiledBaseline{"max-autotune", 0, 0, 0, "failed"}};
  EXPECT_FALSE(result.python_call_bound()) << "no timed mode";
  result.eager_median_us = 0;
  result.compiled = {CompiledBaseline{"default", 70.9, 0.1, 3, ""}};
  EXPECT_FALSE(result.python_call_bound()) << "no eager baseline to compare with";
}

TEST(CompiledBaselines, KnownModesOnly) {
  EXPECT_TRUE(known_compile_mode("default"));
  EXPECT_TRUE(known_compile_mode("max-autotune-no-cudagraphs"));
  EXPECT_FALSE(known_compile_mode("max_autotune"));
  EXPECT_FALSE(known_compile_mode("none"));
}

TEST(CompiledBaselines, Kb001NamesTheFastestModeOrWhyNone) {
  TreeFacts tree;
  VariantFacts variant;
  variant.directory_name = "torch211-cxx11-cu130-x86_64-linux";
  HarnessFacts facts;
  facts.worker.started = true;
  facts.module_relative_path = "_activation_cuda_0a1b2c3.abi3.so";
  OpBenchmarkFact fast = timed("fatrelu_and_mul", "bfloat16");
  fast.compiled = {{"default", 12.5, 0.5, 20.0, ""}, {"max-autotune-no-cudagraphs", 11.0, 0.25, 60.0, ""}};
  fast.compiled[1].paired_median_us = 10.0;
  fast.compiled[1].paired_spread_us = 0.5;
  OpBenchmarkFact unpaired = timed("fatrelu_and_mul", "float16");
  unpaired.compiled = {{"default", 12.5, 0.5, 20.0, ""}};
  unpaired.compiled[0].paired_problem = "not timed beside it: loading the variant's library failed: OSError: x";
  OpBenchmarkFact failed = timed("fatrelu_and_mul", "float32");
  failed.compiled = {{"default", 0, 0, 1.0, "torch.compile failed: RuntimeError: no"}};
  OpBenchmarkFact untried = timed("no_baseline", "float32");
  untried.compiled_problem = "not timed: --compile none";
  facts.benchmarks = {fast, unpaired, failed, untried};
  variant.harness = facts;
  tree.variants.push_back(variant);
  tree.collected = RuleNeeds::kernel_bench;  // as `kcheck bench` leaves it
  AuditOptions options;
  options.selection.select = {"KB001"};
  const Report report = judge(tree, load_policy("hub"), options, make_rule_registry());
  ASSERT_EQ(report.findings.size(), 4u);
  std::string messages;
  for (const Finding& finding : report.findings) messages += finding.message + "\n";
  EXPECT_NE(messages.find("1.1x torch.compile (max-autotune-no-cudagraphs, median 11 us, IQR 0.25 us; on the same "
                          "buffers 1.1x (the op beside it, from Python: median 10 us, IQR 0.5 us))"),
            std::string::npos)
      << messages;
  EXPECT_NE(messages.find("1.25x torch.compile (default, median 12.5 us, IQR 0.5 us; not timed beside it: loading the "
                          "variant's library failed: OSError: x)"),
            std::string::npos)
      << messages;
  EXPECT_NE(messages.find("; torch.compile not timed (default: torch.compile failed: RuntimeError: no)"),
            std::string::npos)
      << messages;
  EXPECT_NE(messages.find("; torch.compile not timed: --compile none"), std::string::npos) << messages;
}

}  // namespace
}  // namespace kcheck
