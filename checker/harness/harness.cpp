#include "checker/harness/harness.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "checker/core/bounded_process.h"
#include "checker/core/bounded_read.h"
#include "checker/core/kernel_identity.h"
#include "checker/harness/compiled_baselines.h"
#include "checker/harness/contained_run.h"
#include "checker/harness/op_spec.h"
#include "checker/report/saved_report.h"

namespace kcheck {
namespace fs = std::filesystem;

namespace {

using nlohmann::json;

std::vector<DispatcherOp> read_ops(const json& list) {
  std::vector<DispatcherOp> ops;
  if (!list.is_array()) return ops;
  for (const json& op : list)
    if (op.is_object()) ops.push_back({op.value("name", ""), op.value("namespace", "")});
  return ops;
}

double number_or(const json& object, const char* key, double fallback = 0) {
  auto found = object.find(key);
  return found != object.end() && found->is_number() ? found->get<double>() : fallback;
}

std::string string_or(const json& object, const char* key) {
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

std::vector<OpRunFact> read_op_runs(const json& list) {
  std::vector<OpRunFact> ops;
  if (!list.is_array()) return ops;
  for (const json& item : list) {
    if (!item.is_object()) continue;
    OpRunFact op;
    op.op = string_or(item, "op");
    op.has_kernel = item.value("has_kernel", true);
    op.spec = string_or(item, "spec");
    op.schema_problem = string_or(item, "schema_problem");
    if (item.contains("smoke") && item["smoke"].is_object()) {
      op.smoke_called = item["smoke"].value("called", false);
      op.smoke_error = string_or(item["smoke"], "error");
    }
    if (item.contains("checks") && item["checks"].is_array())
      for (const json& entry : item["checks"]) {
        if (!entry.is_object()) continue;
        OpCheckFact check;
        check.dtype = string_or(entry, "dtype");
        check.size = string_or(entry, "size");
        check.shape = string_or(entry, "shape");
        check.max_abs_error = number_or(entry, "max_abs_error");
        check.relative_error = number_or(entry, "relative_error");
        check.rtol = number_or(entry, "rtol");
        check.atol = number_or(entry, "atol");
        check.passed = entry.value("passed", false);
        check.problem = string_or(entry, "problem");
        check.guard_violation = entry.value("guard_violation", false);
        check.device_error = string_or(entry, "device_error");
        op.checks.push_back(std::move(check));
      }
    ops.push_back(std::move(op));
  }
  return ops;
}

std::vector<OpBenchmarkFact> read_benchmarks(const json& list, const std::string& own_namespace) {
  std::vector<OpBenchmarkFact> benchmarks;
  if (!list.is_array()) return benchmarks;
  for (const json& item : list) {
    if (!item.is_object()) continue;
    OpBenchmarkFact benchmark;
    benchmark.op = own_namespace + "::" + string_or(item, "op");
    benchmark.dtype = string_or(item, "dtype");
    benchmark.size = string_or(item, "size");
    benchmark.shape = string_or(item, "shape");
    benchmark.median_us = number_or(item, "median_us");
    benchmark.spread_us = number_or(item, "spread_us");
    benchmark.samples = static_cast<int>(number_or(item, "samples"));
    benchmark.bytes = number_or(item, "bytes");
    benchmark.eager = string_or(item, "eager");
    benchmark.eager_problem = string_or(item, "eager_problem");
    benchmark.eager_median_us = number_or(item, "eager_median_us");
    benchmark.eager_spread_us = number_or(item, "eager_spread_us");
    benchmark.buffer_sets = static_cast<int>(std::clamp(number_or(item, "buffer_sets", 1), 1.0, 64.0));
    benchmarks.push_back(std::move(benchmark));
  }
  return benchmarks;
}

// The worker's result file into the facts; false when it cannot be read.
bool read_result(const fs::path& path, HarnessFacts& facts) {
  std::error_code missing;
  if (!fs::exists(fs::symlink_status(path, missing))) return false;
  // The worker runs the kernel's code, which may have replaced the file
  // (a FIFO, a huge file): read it bounded, never blocking.
  std::string error;
  const std::optional<std::string> text = read_bounded_file(path, kMaxParsedFileBytes, error);
  if (!text) {
    facts.harness_problem = "the worker's result file cannot be read: " + error;
    return true;
  }
  json result = json::parse(*text, nullptr, false);
  if (result.is_discarded() || !result.is_object()) {
    facts.harness_problem = "the worker's result file is not JSON";
    return true;
  }
  std::string stage = result.value("stage", "");
  facts.load_started = true;
  if (stage == "load_failed") facts.load_error = result.value("load_error", "dlopen failed");
  if (stage == "loaded" || stage == "running" || stage == "done") {
    facts.loaded = true;
    facts.new_ops = read_ops(result.value("new_ops", json::array()));
    facts.changed_ops = read_ops(result.value("changed_ops", json::array()));
    if (result.contains("new_fallbacks") && result["new_fallbacks"].is_array())
      for (const json& key : result["new_fallbacks"])
        if (key.is_string()) facts.new_fallbacks.push_back(key.get<std::string>());
  }
  if (stage == "running") facts.running = string_or(result, "running");
  if (stage == "done") {
    facts.ops_finished = true;
    facts.run_problem = string_or(result, "run_problem");
    facts.ops = read_op_runs(result.value("ops", json::array()));
    facts.benchmarks = read_benchmarks(result.value("benchmarks", json::array()), facts.own_namespace);
  }
  if (result.contains("device") && result["device"].is_object()) {
    facts.device_name = string_or(result["device"], "name");
    facts.device_backend = string_or(result["device"], "backend");
    facts.copy_bandwidth_gbs = number_or(result["device"], "copy_bandwidth_gbs");
    facts.matmul_tflops = number_or(result["device"], "matmul_tflops");
    facts.matmul_dtype = string_or(result["device"], "matmul_dtype");
  }
  return true;
}

// Imports the variant directory as a package the way the Hub loader does
// (importlib, a unique module name) in `python`, when its Torch matches.
constexpr const char* kImportScript = R"py(
import importlib.util, pathlib, sys
variant, wanted = pathlib.Path(sys.argv[1]), sys.argv[2]
try:
    import torch
except Exception as error:
    print("kcheck-skip: no torch in this Python:", error); sys.exit(3)
have = ".".join(torch.__version__.split("+")[0].split(".")[:2])
if have != wanted:
    print("kcheck-skip: this Python has Torch", torch.__version__, "and the variant needs", wanted); sys.exit(3)
name = "kcheck_import_" + variant.name.replace("-", "_")
spec = importlib.util.spec_from_file_location(name, variant / "__init__.py", submodule_search_locations=[str(variant)])
module = importlib.util.module_from_spec(spec)
sys.modules[name] = module
spec.loader.exec_module(module)
print("kcheck-imported")
)py";

PythonImportFact import_through_python(const VariantFacts& variant, const HarnessOptions& options,
                                       const fs::path& private_scratch) {
  PythonImportFact fact;
  fact.python = options.python.string();
  if (options.python.empty()) {
    fact.skipped_because = "no Python given";
    return fact;
  }
  std::string wanted = variant.name ? std::to_string(variant.name->framework_version.major()) + "." +
                                          std::to_string(variant.name->framework_version.minor())
                                    : std::string();
  // Starting Python and importing Torch can take long on a loaded machine.
  auto timeout = std::max<std::chrono::milliseconds>(options.timeout, std::chrono::seconds(120));
  const PrivateScratch scratch(private_scratch);
  ProcessEnd end = run_bounded({options.python.string(), "-c", kImportScript, variant.path.string(), wanted},
                               contained_limits(variant, options, timeout, scratch.path()));
  if (end.exit_code == 3 || !end.started) {
    fact.skipped_because = end.started ? end.output : "cannot start " + fact.python;
    return fact;
  }
  fact.imported = end.exit_code == 0 && end.output.find("kcheck-imported") != std::string::npos;
  if (!fact.imported) {
    std::string output = end.output;
    while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
    auto last_line = output.rfind('\n');
    fact.error = last_line == std::string::npos ? output : output.substr(last_line + 1);
    if (end.timed_out) fact.error = "the import did not finish before the timeout";
    else if (end.signal) fact.error = "the import killed Python with " + describe_signal(end.signal);
    if (fact.error.empty()) fact.error = "exit status " + std::to_string(end.exit_code);
  }
  return fact;
}

std::uint64_t fresh_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 21 ^ device()) & ((1ull << 53) - 1);
}

// Baseline timings (median, IQR) by variant, op, dtype and shape.
std::map<std::string, BaselineTiming> read_baseline(const fs::path& path) {
  std::map<std::string, BaselineTiming> timings;
  if (path.empty()) return timings;
  const Report report = load_saved_report(path);  // throws, naming the file
  for (const BenchmarkResult& result : report.dynamic.benchmarks)
    timings[result.variant + "|" + result.op + "|" + result.dtype + "|" + result.shape] = {result.median_us,
                                                                                          result.spread_us};
  return timings;
}

fs::path make_scratch_dir(const HarnessOptions& options) {
  if (!options.scratch_dir.empty()) {
    fs::create_directories(options.scratch_dir);
    return fs::absolute(options.scratch_dir);  // the worker runs in the variant's directory
  }
  std::string pattern = (fs::temp_directory_path() / "kcheck-run-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory");
  return pattern;
}

const NativeModuleFacts* loadable_module(const VariantFacts& variant) {
  for (const NativeModuleFacts& module : variant.native_modules)
    if (module.elf) return &module;
  return nullptr;
}

// Runs the worker on `module` contained, with `private_scratch` its only
// writable directory (the result file goes there), into `facts`.
void run_worker(const VariantFacts& variant, const NativeModuleFacts& module, const std::optional<fs::path>& plan,
                const HarnessOptions& options, const fs::path& private_scratch, HarnessFacts& facts) {
  const PrivateScratch scratch(private_scratch);
  const fs::path result = scratch.path() / "result.json";
  std::vector<std::string> command = {options.worker.string(), "--result", result.string()};
  if (plan) command.insert(command.end(), {"--plan", plan->string()});
  facts.ops_planned = plan.has_value();
  command.push_back((variant.path / module.relative_path).string());
  facts.worker = run_bounded(command, contained_limits(variant, options, options.timeout, scratch.path()));
  if (!facts.worker.started) facts.harness_problem = facts.worker.output;
  else if (!read_result(result, facts) && facts.worker.exit_code == 0)
    facts.harness_problem = "kcheck_worker wrote no result";
}

}  // namespace

fs::path HarnessOptions::default_worker_path() {
  // Next to the running kcheck first (an installed pair), else where the build put it.
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error && fs::exists(self.parent_path() / "kcheck_worker")) return self.parent_path() / "kcheck_worker";
  return KCHECK_WORKER_PATH;
}

LocalTorch query_local_torch(const HarnessOptions& options) {
  LocalTorch torch;
  if (options.worker.empty() || !fs::exists(options.worker)) {
    torch.problem =
        "kcheck_worker is not built (no Torch in the repository's .venv when kcheck was configured, or a wheel: "
        "build kcheck from source beside a Torch, README \"Set-up\")";
    return torch;
  }
  ProcessLimits limits{std::chrono::milliseconds(60000), 64 * 1024};
  WorkerEnd end = run_bounded({options.worker.string(), "--info"}, limits);
  if (end.exit_code != 0) {
    torch.problem = "kcheck_worker --info failed: " + end.output;
    return torch;
  }
  json info = json::parse(end.output, nullptr, false);
  if (!info.is_object()) {
    torch.problem = "kcheck_worker --info wrote no JSON";
    return torch;
  }
  torch.version_text = info.value("torch_version", "");
  torch.version = Version::parse(torch.version_text).value_or(Version{});
  torch.cxx11_abi = info.value("cxx11_abi", true);
  if (info.contains("backends"))
    for (const json& backend : info["backends"])
      if (backend.is_string()) torch.backends.push_back(backend.get<std::string>());
  torch.available = !torch.version.empty();
  if (!torch.available) torch.problem = "kcheck_worker reported no Torch version";
  return torch;
}

std::string why_not_runnable(const VariantFacts& variant, const LocalTorch& torch) {
  if (!torch.available) return torch.problem;
  if (!variant.name) return "its directory name is no variant name, so the Torch it needs is unknown";
  const VariantName& name = *variant.name;
  if (name.kind == VariantKind::tvm_ffi) return "tvm-ffi variants need a tvm-ffi harness, which kcheck does not have";
  std::string needs;
  auto add = [&needs](const std::string& what) { needs += (needs.empty() ? "" : ", ") + what; };
  const Version local_minor({torch.version.major(), torch.version.minor()});
  if (name.kind == VariantKind::torch_stable_abi) {
    // The loader's rule (build-variants.md §1.4): a stable-ABI build serves every Torch at or above its ABI version.
    if (local_minor < name.framework_version)
      add("Torch " + name.framework_version.str() + " or newer for its stable ABI (kcheck_worker is built against Torch " +
          torch.version_text + ")");
  } else {
    if (name.framework_version.major() != torch.version.major() ||
        name.framework_version.minor() != torch.version.minor())
      add("Torch " + name.framework_version.str() + " (kcheck_worker is built against Torch " + torch.version_text + ")");
    bool wants_cxx11 = name.cxx_tag == "cxx11";
    if (wants_cxx11 != torch.cxx11_abi)
      add(std::string("the ") + (wants_cxx11 ? "cxx11" : "pre-cxx11 (cxx98)") + " C++ ABI of libtorch");
  }
  bool backend_here = false;
  for (const std::string& backend : torch.backends) backend_here = backend_here || backend == name.backend;
  std::string present;
  for (const std::string& backend : torch.backends) present += (present.empty() ? "" : ", ") + backend;
  if (!backend_here) add("the " + name.backend + " backend (present here: " + present + ")");
  std::string system = name.system();
#if defined(__x86_64__)
  if (system != "x86_64-linux") add("a " + system + " host (this is x86_64-linux)");
#elif defined(__aarch64__)
  if (system != "aarch64-linux") add("a " + system + " host (this is aarch64-linux)");
#endif
  return needs.empty() ? std::string() : "needs " + needs;
}

void run_harness(TreeFacts& tree, const HarnessOptions& options) {
  LocalTorch torch = query_local_torch(options);
  fs::path scratch = make_scratch_dir(options);
  std::uint64_t seed = options.seed ? options.seed : fresh_seed();
  std::map<std::string, BaselineTiming> baseline = read_baseline(options.baseline);
  std::optional<OpSpecSet> specs;
  if (options.check_ops || options.bench) {
    fs::path repository = options.repository;
    if (repository.empty()) repository = tree.build_dir.empty() ? fs::path() : tree.build_dir.parent_path();
    specs = op_specs_for(repository);
  }
  std::size_t index = 0;
  for (VariantFacts& variant : tree.variants) {
    if (variant.name && !variant.name->compiled()) continue;  // python-only: nothing to load
    const NativeModuleFacts* module = loadable_module(variant);
    if (!module) continue;  // no native module: the static rules say so
    HarnessFacts facts;
    facts.module_relative_path = module->relative_path;
    facts.own_namespace = variant_kernel_id(variant).value_or("");
    facts.skipped_because = why_not_runnable(variant, torch);
    facts.seed = seed;
    facts.regression_threshold = options.regression_threshold;
    if (facts.skipped_because.empty()) {
      const std::string stem = std::to_string(index++);
      std::optional<fs::path> plan;
      RunSettings settings;
      if (specs) {
        settings.backend = variant.name ? variant.name->backend : "cpu";
        settings.seed = seed;
        settings.sizes = options.sizes;
        if (settings.sizes.empty() && settings.backend == "cpu") settings.sizes = {"small", "medium"};
        settings.bench = options.bench;
        settings.samples = options.samples;
        plan = scratch / ("plan-" + stem + ".json");
        std::ofstream(*plan, std::ios::binary) << worker_plan(*specs, settings).dump();
      }
      run_worker(variant, *module, plan, options, scratch / ("worker-" + stem), facts);
      if (options.bench && specs && !facts.benchmarks.empty()) {
        CompilePlanSettings compile{settings.backend, seed, options.samples, settings.target_sample_seconds,
                                    options.compile_modes};
        time_compiled_baselines(variant, *specs, compile, options, scratch / ("compile-" + stem), facts);
      }
      for (OpBenchmarkFact& benchmark : facts.benchmarks) {
        auto found = baseline.find(variant.directory_name + "|" + benchmark.op + "|" + benchmark.dtype + "|" +
                                   benchmark.shape);
        if (found != baseline.end()) benchmark.baseline = found->second;
      }
      if (facts.loaded && facts.worker.exit_code == 0 && !facts.worker.timed_out)
        facts.python_import = import_through_python(variant, options, scratch / ("import-" + stem));
    }
    variant.harness = std::move(facts);
    report_progress(options.progress, ProgressCounter::variants_run);
  }
  if (options.scratch_dir.empty()) {
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
  }
}

DynamicResults dynamic_results(const TreeFacts& tree) {
  DynamicResults dynamic;
  for (const VariantFacts& variant : tree.variants) {
    if (!variant.harness) continue;
    const HarnessFacts& facts = *variant.harness;
    if (facts.seed && facts.ops_planned) dynamic.seed = facts.seed;
    if (facts.worker.containment && dynamic.containment.empty()) dynamic.containment = facts.worker.containment->describe();
    if (!facts.device_name.empty())
      dynamic.devices.push_back({variant.directory_name, facts.device_name, facts.device_backend,
                                 facts.copy_bandwidth_gbs, facts.matmul_tflops, facts.matmul_dtype});
    for (const OpRunFact& op : facts.ops)
      for (const OpCheckFact& check : op.checks)
        dynamic.op_checks.push_back({variant.directory_name, op.op, check.dtype, check.shape,
                                     std::max(check.max_abs_error, 0.0), std::max(check.relative_error, 0.0),
                                     check.passed});
    for (const OpBenchmarkFact& benchmark : facts.benchmarks) {
      BenchmarkResult result;
      result.variant = variant.directory_name;
      result.op = benchmark.op;
      result.dtype = benchmark.dtype;
      result.shape = benchmark.shape;
      result.repetitions = benchmark.samples;
      result.median_us = benchmark.median_us;
      result.spread_us = benchmark.spread_us;
      result.bytes = benchmark.bytes;
      result.achieved_gbs = benchmark.achieved_gbs();
      result.percent_of_peak = benchmark.percent_of(facts.copy_bandwidth_gbs);
      result.eager = benchmark.eager;
      result.eager_problem = benchmark.eager_problem;
      result.eager_median_us = benchmark.eager_median_us;
      result.eager_spread_us = benchmark.eager_spread_us;
      result.speedup = benchmark.speedup();
      result.compiled = benchmark.compiled;
      result.compiled_problem = benchmark.compiled_problem;
      result.compile_speedup = benchmark.compile_speedup();
      result.eager_python_median_us = benchmark.eager_python_median_us;
      dynamic.benchmarks.push_back(std::move(result));
    }
  }
  return dynamic;
}

}  // namespace kcheck
