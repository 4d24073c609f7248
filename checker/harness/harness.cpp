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

#include "checker/process/bounded_process.h"
#include "checker/support/bounded_read.h"
#include "checker/process/executable_search.h"
#include "checker/facts/kernel_identity.h"
#include "checker/harness/compiled_baselines.h"
#include "checker/support/embedded_files.h"
#include "checker/harness/contained_run.h"
#include "checker/harness/rules/op_verification.h"
#include "checker/harness/op_spec.h"
#include "checker/harness/worker_protocol.h"
#include "checker/report/saved_report.h"

namespace kcheck {
namespace fs = std::filesystem;

namespace {

using nlohmann::json;

std::vector<DispatcherOp> dispatcher_ops(const std::vector<worker::RegisteredOp>& registered) {
  std::vector<DispatcherOp> ops;
  ops.reserve(registered.size());
  for (const worker::RegisteredOp& op : registered) ops.push_back({op.name, op.op_namespace});
  return ops;
}

OpRunFact op_run_fact(const worker::OpResult& result) {
  OpRunFact op;
  op.op = result.op;
  op.schema = result.schema;
  op.dispatch_keys = result.dispatch_keys;
  op.has_kernel = result.has_kernel;
  op.spec = result.spec;
  op.schema_problem = result.schema_problem;
  if (result.smoke) {
    op.smoke_called = result.smoke->called;
    op.smoke_error = result.smoke->error;
  }
  for (const worker::CaseCheck& check : result.checks)
    op.checks.push_back({check.dtype, check.size, check.shape, check.max_abs_error, check.relative_error, check.rtol,
                         check.atol, check.passed, check.problem, check.guard_violation, check.device_error,
                         check.unsupported, check.reference_problem});
  return op;
}

OpBenchmarkFact benchmark_fact(const worker::CaseTiming& timing, const std::string& own_namespace) {
  OpBenchmarkFact benchmark;
  benchmark.op = own_namespace + "::" + timing.op;
  benchmark.dtype = timing.dtype;
  benchmark.size = timing.size;
  benchmark.shape = timing.shape;
  benchmark.median_us = timing.median_us;
  benchmark.spread_us = timing.spread_us;
  benchmark.samples = timing.samples;
  benchmark.bytes = static_cast<double>(timing.bytes);
  benchmark.eager = timing.eager;
  benchmark.eager_problem = timing.eager_problem;
  benchmark.eager_median_us = timing.eager_median_us;
  benchmark.eager_spread_us = timing.eager_spread_us;
  benchmark.buffer_sets = std::clamp(timing.buffer_sets, 1, 64);
  benchmark.output_placements = std::clamp(timing.output_placements, 1, benchmark.buffer_sets);
  return benchmark;
}

// The worker's last result record (its result pipe) into the facts; false
// when it wrote none.
bool read_result(const ProcessEnd& worker, HarnessFacts& facts) {
  if (worker.result_too_large) {
    facts.harness_problem =
        "the worker's result is larger than kcheck reads (" + std::to_string(kMaxParsedFileBytes >> 20) + " MiB)";
    return true;
  }
  if (!worker.result) return false;
  json document = json::parse(*worker.result, nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    facts.harness_problem = "the worker's result is not JSON";
    return true;
  }
  worker::WorkerResult result;
  try {
    result = document.get<worker::WorkerResult>();
  } catch (const json::exception& broken) {
    facts.harness_problem = std::string("the worker's result does not follow the worker protocol: ") + broken.what();
    return true;
  }
  using Stage = worker::WorkerStage;
  facts.load_started = true;
  if (result.stage == Stage::load_failed) {
    facts.load_error = result.load_error.empty() ? "dlopen failed" : result.load_error;
    if (!result.libpython_problem.empty()) facts.load_error += " (libpython: " + result.libpython_problem + ")";
  }
  if (result.stage == Stage::loaded || result.stage == Stage::running || result.stage == Stage::done) {
    facts.loaded = true;
    facts.new_ops = dispatcher_ops(result.new_ops);
    facts.changed_ops = dispatcher_ops(result.changed_ops);
    facts.new_fallbacks = result.new_fallbacks;
  }
  if (result.stage == Stage::running) facts.running = result.running;
  if (result.stage == Stage::done) {
    facts.ops_finished = true;
    facts.run_problem = result.run_problem;
    for (const worker::OpResult& op : result.ops) facts.ops.push_back(op_run_fact(op));
    for (const worker::CaseTiming& timing : result.benchmarks)
      facts.benchmarks.push_back(benchmark_fact(timing, facts.own_namespace));
  }
  if (result.device) {
    facts.device_name = result.device->name;
    facts.device_backend = result.device->backend;
    facts.copy_bandwidth_gbs = result.device->copy_bandwidth_gbs;
    facts.matmul_tflops = result.device->matmul_tflops;
    facts.matmul_dtype = result.device->matmul_dtype;
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
    fact.error = last_output_lines(end.output);
    if (end.timed_out)
      fact.error = "the import did not finish before the timeout";
    else if (end.signal)
      fact.error = "the import killed Python with " + describe_signal(end.signal);
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

// Runs the worker on `module` contained, with `private_scratch` its scratch
// (`plan` is there), into `facts`. Its result comes back on a pipe.
void run_worker(const VariantFacts& variant, const NativeModuleFacts& module, const std::optional<fs::path>& plan,
                const HarnessOptions& options, const fs::path& private_scratch, HarnessFacts& facts) {
  const PrivateScratch scratch(private_scratch);
  std::vector<std::string> command = {options.worker.string(), "--result-fd", "3"};
  if (plan) command.insert(command.end(), {"--plan", plan->string()});
  facts.ops_planned = plan.has_value();
  command.push_back((variant.path / module.relative_path).string());
  ProcessLimits limits = contained_limits(variant, options, options.timeout, scratch.path());
  limits.result_channel = true;
  limits.max_result = kMaxParsedFileBytes;
  facts.worker = run_bounded(command, limits);
  if (!facts.worker.started)
    facts.harness_problem = facts.worker.output;
  else if (!read_result(facts.worker, facts) && facts.worker.exit_code == 0)
    facts.harness_problem = "kcheck_worker wrote no result";
}

// The op namespace of a noarch variant under the running Torch: its id is
// `_<name>_<backend>_<unique id>` with the directory's backend, and its
// _ops.py (upstream's template) puts the running Torch's backend there.
std::string noarch_namespace(const std::string& id, const VariantFacts& variant, const std::string& torch_backend) {
  if (!variant.name || torch_backend.empty()) return id;
  const std::string directory_part = "_" + variant.name->backend + "_";
  const std::size_t at = id.rfind(directory_part);
  if (at == std::string::npos) return id;
  return id.substr(0, at) + "_" + torch_backend + "_" + id.substr(at + directory_part.size());
}

// A Python-only variant's load: python_loader.py imports its package, as the
// Hub loader does, in `options.python`, contained like the worker, and says
// on the result pipe whether the import finished and which ops it registered.
void load_python_only(const VariantFacts& variant, const HarnessOptions& options, const fs::path& private_scratch,
                      HarnessFacts& facts) {
  facts.python_only = true;
  facts.module_relative_path = "__init__.py";
  facts.worker_key.clear();  // kcheck_worker only said which Torch the Python has
  const std::optional<std::string_view> loader = find_embedded_file("checker/harness/python_loader.py");
  if (!loader) {
    facts.harness_problem = "this kcheck was built without its Python loader";
    return;
  }
  if (options.python.empty()) {
    facts.skipped_because = "a Python-only variant is loaded through Python, and none was given (--python)";
    return;
  }
  // Starting Python and importing Torch can take long on a loaded machine.
  const auto timeout = std::max<std::chrono::milliseconds>(options.timeout, std::chrono::seconds(120));
  const PrivateScratch scratch(private_scratch);
  ProcessLimits limits = contained_limits(variant, options, timeout, scratch.path());
  limits.result_channel = true;
  limits.max_result = kMaxParsedFileBytes;
  facts.load_started = true;
  facts.worker = run_bounded(
      {options.python.string(), "-I", "-B", "-c", std::string(*loader), "3", variant.path.string()}, limits);
  if (!facts.worker.started) {
    facts.harness_problem = facts.worker.output;
    return;
  }
  if (facts.worker.exit_code == 3 && !facts.worker.result) {
    facts.skipped_because = "no Torch in " + options.python.string() + ": " + last_output_lines(facts.worker.output);
    return;
  }
  if (!facts.worker.result) return;  // it ended before the import returned: KD001, KD003 say how
  const json result = json::parse(*facts.worker.result, nullptr, false);
  if (!result.is_object()) {
    facts.harness_problem = "the Python loader's result is not a JSON object";
    return;
  }
  // Written by the process that ran the package's code: a member of the
  // wrong type leaves the load unjudged, never kcheck's failure.
  try {
    facts.own_namespace = noarch_namespace(facts.own_namespace, variant, result.value("backend", ""));
    facts.loaded = result.at("imported").get<bool>();
    facts.load_error = result.value("error", "");
    for (const json& name : result.at("ops")) {
      const std::string op = name.get<std::string>();
      facts.new_ops.push_back({op, op.substr(0, op.find("::"))});
    }
  } catch (const json::exception& broken) {
    facts.loaded = false;
    facts.new_ops.clear();
    facts.harness_problem = std::string("the Python loader's result is unusable: ") + broken.what();
  }
}

// Each checked op's reference as its spec writes it, for the report.
void name_references(const OpSpecSet& specs, HarnessFacts& facts) {
  for (OpRunFact& op : facts.ops)
    if (const OpSpec* spec = op.spec.empty() ? nullptr : specs.find(op.spec)) op.reference = spec->reference;
}

// Writes kcheck's embedded helper `name` into `scratch`, where the contained processes can read it.
fs::path write_helper(const std::string& name, const fs::path& scratch) {
  const std::optional<std::string_view> text = find_embedded_file("checker/harness/" + name);
  if (!text) return {};
  fs::path path = scratch / name;
  std::ofstream(path, std::ios::binary) << *text;
  return path;
}

worker::PythonReferenceSettings python_reference_settings(const HarnessOptions& options, const fs::path& repository,
                                                          const fs::path& scratch) {
  worker::PythonReferenceSettings settings;
  settings.python = options.python.string();
  settings.helper = write_helper("reference_runner.py", scratch).string();
  std::error_code error;
  settings.repository = repository.empty() ? std::string() : fs::absolute(repository, error).string();
  return settings;
}

// The kernel's Python package name: build.toml's name, else the variant's
// one compatibility package (<variant>/<name>/__init__.py); "" when neither says.
std::string kernel_package_name(const TreeFacts& tree, const VariantFacts& variant) {
  if (tree.build_config && !tree.build_config->module_name().empty()) return tree.build_config->module_name();
  std::string found;
  for (const FileEntry& file : variant.files) {
    const std::string& path = file.relative_path;
    const auto slash = path.find('/');
    if (slash == std::string::npos || path.substr(slash + 1) != "__init__.py") continue;
    if (!found.empty() && found != path.substr(0, slash)) return "";
    found = path.substr(0, slash);
  }
  return found;
}

// A string from the test run, cut to what a report line can hold (display_safe escapes it when shown).
std::string truncated(const std::string& text) {
  constexpr std::size_t kMaxLength = 600;
  return text.size() <= kMaxLength ? text : text.substr(0, kMaxLength) + "...";
}

// LOCAL_KERNELS for the tests (the `kernels` loader's override): the
// kernel's Hub repository id, build.toml's [general.hub] repo-id or else
// kernels-community/<name>, mapped to the variant under test, so a test that
// calls kernels.get_kernel(REPO_ID) gets this build and nothing from the Hub.
std::string local_kernels_override(const TreeFacts& tree, const VariantFacts& variant) {
  if (!tree.build_config) return "";
  const GeneralSection& general = tree.build_config->general;
  std::string repo_id = general.hub_repo_id ? general.hub_repo_id->value : "";
  if (repo_id.empty() && general.name) repo_id = "kernels-community/" + general.name->value;
  if (repo_id.empty() || repo_id.find_first_of(":=") != std::string::npos) return "";
  return repo_id + "=" + variant.path.string();
}

TestCaseFact test_case(const json& entry) {
  TestCaseFact test;
  test.id = truncated(entry.value("id", ""));
  test.outcome = entry.value("outcome", "");
  test.message = truncated(entry.value("message", ""));
  test.seconds = entry.value("seconds", 0.0);
  return test;
}

// Why a finished pytest run gave no test outcome, from its results; "" when it gave some.
std::string suite_problem(const json& results, const std::string& directory) {
  const json& errors = results.contains("collect_errors") ? results["collect_errors"] : json::array();
  if (errors.is_array() && !errors.empty() && errors[0].is_object())
    return "collecting " + truncated(errors[0].value("id", "")) +
           " failed: " + truncated(errors[0].value("message", "")) +
           (errors.size() > 1 ? " (and " + std::to_string(errors.size() - 1) + " more)" : "");
  if (results.value("collected", 0) == 0) return "pytest collected no test from " + directory;
  return "";
}

// Runs the kernel's pytest suite against `variant`, contained like the
// worker, with the variant importable under the kernel's package name.
TestSuiteFact run_kernel_tests(const TreeFacts& tree, const VariantFacts& variant, const fs::path& repository,
                               const HarnessOptions& options, const fs::path& private_scratch) {
  TestSuiteFact suite;
  const fs::path directory = options.tests->is_absolute() ? *options.tests : repository / *options.tests;
  suite.directory = options.tests->empty() ? "tests" : options.tests->string();
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    suite.cannot_start = "there is no test folder " + directory.string();
    return suite;
  }
  if (options.python.empty()) {
    suite.cannot_start = "no Python with Torch and pytest was given (--python)";
    return suite;
  }
  const std::string package = kernel_package_name(tree, variant);
  if (package.empty()) {
    suite.cannot_start =
        "the kernel's package name is unknown (no build.toml beside build/, and the variant has "
        "no single compatibility package)";
    return suite;
  }
  const PrivateScratch scratch(private_scratch);
  const fs::path import_dir = scratch.path() / "import";
  fs::create_directories(import_dir);
  fs::create_directory_symlink(variant.path, import_dir / package, error);

  const std::optional<std::string_view> runner = find_embedded_file("checker/harness/test_runner.py");
  if (!runner || error) {
    suite.cannot_start = runner ? "cannot link the variant as " + package + ": " + error.message()
                                : "this kcheck was built without its test runner";
    return suite;
  }
  ProcessLimits limits = contained_limits(variant, options, options.tests_timeout, scratch.path());
  limits.result_channel = true;  // descriptor 3: no file the tests can reach is read as the results
  limits.max_result = kMaxParsedFileBytes;
  const ProcessEnd end = run_bounded(
      {options.python.string(), "-I", "-B", "-c", std::string(*runner), "3", import_dir.string(),
       fs::absolute(directory).string(), fs::absolute(repository).string(), local_kernels_override(tree, variant)},
      limits);
  const json results = end.result ? json::parse(*end.result, nullptr, false) : json();
  if (!results.is_object()) {
    suite.cannot_start = end.timed_out ? "the tests did not finish within the time bound"
                         : end.signal  ? "pytest was killed by " + describe_signal(end.signal)
                                       : truncated(last_output_lines(end.output));
    if (suite.cannot_start.empty())
      suite.cannot_start = "pytest wrote no results (exit status " + std::to_string(end.exit_code) + ")";
    return suite;
  }
  // Written by a process that ran the kernel's tests: a member of the wrong
  // type makes the whole file unusable, never kcheck's failure.
  try {
    if (results.contains("tests") && results["tests"].is_array())
      for (const json& entry : results["tests"])
        if (entry.is_object()) suite.cases.push_back(test_case(entry));
    if (results.contains("ops_called") && results["ops_called"].is_array())
      for (const json& name : results["ops_called"])
        if (name.is_string()) suite.ops_called.push_back(name.get<std::string>());
    if (suite.cases.empty()) suite.cannot_start = suite_problem(results, suite.directory);
  } catch (const json::exception& broken) {
    suite.cases.clear();
    suite.ops_called.clear();
    suite.cannot_start = std::string("the test results are unusable: ") + broken.what();
  }
  if (end.timed_out) suite.cannot_start = "the tests did not finish within the time bound";
  return suite;
}

}  // namespace

fs::path default_python(const char* virtual_env, const char* path) {
  std::error_code error;
  if (virtual_env && *virtual_env) {
    fs::path python = fs::path(virtual_env) / "bin" / "python";
    if (fs::exists(python, error)) return python;
  }
  return find_executable("python3", path);
}

fs::path resolve_python(const std::string& given, const char* path) {
  if (given.find('/') == std::string::npos) return find_executable(given, path);
  std::error_code error;
  const fs::path absolute = fs::absolute(given, error);
  return error ? fs::path(given) : absolute;
}

TorchRuntime prepare_runtime(const fs::path& python, const WorkerBuildSettings& settings,
                             const std::function<void(const std::string&)>& announce) {
  TorchRuntime runtime;
  runtime.python = python;
  if (python.empty()) {
    runtime.worker = settings.prebuilt_worker;
    runtime.worker_key = "built-with-kcheck";
    if (runtime.worker.empty())
      runtime.problem =
          "no Python with Torch was given (--python) or found (an active virtual environment, python3 on PATH), so "
          "there is no Torch to build kcheck_worker against";
    return runtime;
  }
  const TorchInstall torch = probe_torch(python, std::chrono::minutes(2));
  const ProvisionedWorker worker = provision_worker(torch, settings, announce);
  runtime.worker = worker.path;
  runtime.worker_key = worker.key;
  runtime.problem = worker.problem;
  runtime.visible_paths = torch.python_dirs;
  // The interpreter itself, not a wrapper around it (a pyenv shim runs code from
  // directories the sandbox hides), where the probe could name it.
  if (torch.problem.empty() && torch.executable.is_absolute()) runtime.python = torch.executable;
  if (!torch.torch_dir.empty()) runtime.visible_paths.push_back(torch.torch_dir);
  return runtime;
}

fs::path HarnessOptions::default_worker_path() {
  // Only next to the running kcheck (the build tree's pair, or an installed
  // one): never a path fixed when kcheck was built, which whoever can create
  // it later would have kcheck run (issue #28 item 8).
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error && fs::exists(self.parent_path() / "kcheck_worker")) return self.parent_path() / "kcheck_worker";
  return {};
}

LocalTorch query_local_torch(const fs::path& worker) {
  LocalTorch torch;
  if (worker.empty() || !fs::exists(worker)) {
    torch.problem =
        "kcheck_worker is not built (no Torch in the repository's .venv when kcheck was configured, or a wheel: "
        "build kcheck from source beside a Torch, README \"Set-up\")";
    return torch;
  }
  // Contained, in a scratch of its own: not wherever kcheck was started
  // (maybe the kernel repository), and seeing only the worker and its Torch.
  WorkerEnd end =
      run_contained_probe({worker.string(), "--info"}, std::chrono::seconds(60), worker_library_directories(worker));
  if (end.exit_code != 0) {
    torch.problem = "kcheck_worker --info failed: " + end.output;
    return torch;
  }
  json document = json::parse(end.output, nullptr, false);
  worker::WorkerInfo info;
  try {
    if (!document.is_object()) throw std::runtime_error("not a JSON object");
    info = document.get<worker::WorkerInfo>();
  } catch (const std::exception& broken) {
    torch.problem = std::string("kcheck_worker --info wrote no usable JSON: ") + broken.what();
    return torch;
  }
  torch.version_text = info.torch_version;
  torch.version = Version::parse(torch.version_text).value_or(Version{});
  torch.cxx11_abi = info.cxx11_abi;
  torch.backends = info.backends;
  torch.available = !torch.version.empty();
  if (!torch.available) torch.problem = "kcheck_worker reported no Torch version";
  return torch;
}

std::optional<std::size_t> runtime_for(const VariantFacts& variant, const std::vector<LocalTorch>& torches,
                                       const std::vector<std::string>& labels, std::string& why_not) {
  std::string reasons;
  for (std::size_t index = 0; index < torches.size(); ++index) {
    const std::string reason = why_not_runnable(variant, torches[index]);
    if (reason.empty()) {
      why_not.clear();
      return index;
    }
    const bool labelled = torches.size() > 1 && index < labels.size() && !labels[index].empty();
    reasons += (reasons.empty() ? "" : "; ") + (labelled ? labels[index] + ": " : std::string()) + reason;
  }
  why_not = torches.empty() ? "no Torch to run it against" : reasons;
  return std::nullopt;
}

std::string why_not_runnable(const VariantFacts& variant, const LocalTorch& torch) {
  if (!torch.available) return torch.problem;
  if (!variant.name) return "its directory name is no variant name, so the Torch it needs is unknown";
  const VariantName& name = *variant.name;
  if (name.kind == VariantKind::tvm_ffi) return "tvm-ffi variants need a tvm-ffi harness, which kcheck does not have";
  std::string needs;
  auto add = [&needs](const std::string& what) { needs += (needs.empty() ? "" : ", ") + what; };
  const Version local_minor({torch.version.major(), torch.version.minor()});
  if (!name.compiled()) {
    // A Python-only variant serves any Torch; only its backend must be here ("universal": any).
  } else if (name.kind == VariantKind::torch_stable_abi) {
    // The loader's rule (build-variants.md §1.4): a stable-ABI build serves every Torch at or above its ABI version.
    if (local_minor < name.framework_version)
      add("Torch " + name.framework_version.str() + " or newer for its stable ABI (the Torch here is " +
          torch.version_text + ")");
  } else {
    if (name.framework_version.major() != torch.version.major() ||
        name.framework_version.minor() != torch.version.minor())
      add("Torch " + name.framework_version.str() + " (the Torch here is " + torch.version_text + ")");
    bool wants_cxx11 = name.cxx_tag == "cxx11";
    if (wants_cxx11 != torch.cxx11_abi)
      add(std::string("the ") + (wants_cxx11 ? "cxx11" : "pre-cxx11 (cxx98)") + " C++ ABI of libtorch");
  }
  bool backend_here = name.backend == "universal";
  for (const std::string& backend : torch.backends) backend_here = backend_here || backend == name.backend;
  std::string present;
  for (const std::string& backend : torch.backends) present += (present.empty() ? "" : ", ") + backend;
  if (!backend_here) add("the " + name.backend + " backend (present here: " + present + ")");
  const std::string system = name.compiled() ? name.system() : "";
#if defined(__x86_64__)
  if (!system.empty() && system != "x86_64-linux") add("a " + system + " host (this is x86_64-linux)");
#elif defined(__aarch64__)
  if (!system.empty() && system != "aarch64-linux") add("a " + system + " host (this is aarch64-linux)");
#endif
  return needs.empty() ? std::string() : "needs " + needs;
}

namespace {

// A runtime with the Torch its worker reports.
struct ReadyRuntime {
  TorchRuntime runtime;
  LocalTorch torch;
};

std::vector<ReadyRuntime> ready_runtimes(const HarnessOptions& options) {
  std::vector<TorchRuntime> given = options.runtimes;
  if (given.empty()) given.push_back({options.python, options.worker, "", ""});
  std::vector<ReadyRuntime> ready;
  ready.reserve(given.size());
  for (TorchRuntime& runtime : given) {
    LocalTorch torch;
    if (runtime.problem.empty())
      torch = query_local_torch(runtime.worker);
    else
      torch.problem = runtime.problem;
    ready.push_back({std::move(runtime), std::move(torch)});
  }
  return ready;
}

}  // namespace

void run_harness(TreeFacts& tree, const HarnessOptions& options) {
  // The run's facts, for the rules that need them (RuleNeeds).
  tree.collected = options.bench ? RuleNeeds::kernel_bench : RuleNeeds::kernel_run;
  const std::vector<ReadyRuntime> runtimes = ready_runtimes(options);
  std::vector<LocalTorch> torches;
  std::vector<std::string> labels;  // each Torch's Python, to tell them apart in reasons
  for (const ReadyRuntime& ready : runtimes) {
    torches.push_back(ready.torch);
    labels.push_back(ready.runtime.python.string());
  }
  std::uint64_t seed = options.seed ? options.seed : fresh_seed();
  // What may throw (a saved report, the repository's op specs) comes before
  // the scratch directory, which an exception would leave behind.
  std::map<std::string, BaselineTiming> baseline = read_baseline(options.baseline);
  fs::path repository = options.repository;
  if (repository.empty()) repository = tree.build_dir.empty() ? fs::path() : tree.build_dir.parent_path();
  std::optional<OpSpecSet> specs;
  // The repository's kcheck-ops.toml is the upload's: one kcheck cannot use
  // (a link out, too large, not a spec) is a finding (KD007), and the ops are
  // checked against the built-in specs; it never stops the run.
  std::string ops_spec_problem;
  if (options.check_ops || options.bench) {
    try {
      specs = op_specs_for(repository);
    } catch (const OpSpecError& error) {
      specs = builtin_op_specs();
      ops_spec_problem = error.what();
      const std::string prefix = (repository / "").string();
      if (ops_spec_problem.starts_with(prefix)) ops_spec_problem.erase(0, prefix.size());
    }
  }
  fs::path scratch = make_scratch_dir(options);
  std::size_t index = 0;
  for (VariantFacts& variant : tree.variants) {
    const bool python_only = variant.name && !variant.name->compiled();
    const NativeModuleFacts* module = python_only ? nullptr : loadable_module(variant);
    if (!module && !python_only) continue;  // no native module: the static rules say so
    HarnessFacts facts;
    if (module) facts.module_relative_path = module->relative_path;
    facts.own_namespace = variant_kernel_id(variant).value_or("");
    const std::optional<std::size_t> chosen = runtime_for(variant, torches, labels, facts.skipped_because);
    const ReadyRuntime* runtime = chosen ? &runtimes[*chosen] : nullptr;
    facts.seed = seed;
    facts.ops_spec_problem = ops_spec_problem;
    facts.regression_threshold = options.regression_threshold;
    if (runtime) {
      HarnessOptions run_options = options;  // this runtime's Python and worker
      run_options.python = runtime->runtime.python;
      run_options.worker = runtime->runtime.worker;
      run_options.repository = repository;
      run_options.visible_paths.insert(run_options.visible_paths.end(), runtime->runtime.visible_paths.begin(),
                                       runtime->runtime.visible_paths.end());
      facts.python = run_options.python.string();
      facts.torch_version = runtime->torch.version_text;
      facts.worker_key = runtime->runtime.worker_key;
      const std::string stem = std::to_string(index++);
      if (python_only) {
        load_python_only(variant, run_options, scratch / ("load-" + stem), facts);
        if (facts.loaded && options.tests)
          facts.tests = run_kernel_tests(tree, variant, repository, run_options, scratch / ("tests-" + stem));
        variant.harness = std::move(facts);
        report_progress(options.progress, ProgressCounter::variants_run);
        continue;
      }
      std::optional<fs::path> plan;
      RunSettings settings;
      if (specs) {
        settings.backend = variant.name ? variant.name->backend : "cpu";
        settings.seed = seed;
        settings.sizes = options.sizes;
        if (settings.sizes.empty() && settings.backend == "cpu") settings.sizes = {"small", "medium"};
        settings.bench = options.bench;
        settings.samples = options.samples;
        settings.python_references = python_reference_settings(run_options, repository, scratch);
        plan = scratch / ("plan-" + stem + ".json");
        std::ofstream(*plan, std::ios::binary) << json(worker_plan(*specs, settings)).dump();
      }
      run_worker(variant, *module, plan, run_options, scratch / ("worker-" + stem), facts);
      if (specs) name_references(*specs, facts);
      if (options.bench && specs && !facts.benchmarks.empty()) {
        CompilePlanSettings compile{settings.backend, seed, options.samples, settings.target_sample_seconds,
                                    options.compile_modes};
        std::error_code absolute_error;
        compile.repository = repository.empty() ? "" : fs::absolute(repository, absolute_error).string();
        compile.library = (variant.path / module->relative_path).string();  // the library the worker loaded
        time_compiled_baselines(variant, *specs, compile, run_options, scratch / ("compile-" + stem), facts);
      }
      for (OpBenchmarkFact& benchmark : facts.benchmarks) {
        auto found =
            baseline.find(variant.directory_name + "|" + benchmark.op + "|" + benchmark.dtype + "|" + benchmark.shape);
        if (found != baseline.end()) benchmark.baseline = found->second;
      }
      if (facts.loaded && facts.worker.exit_code == 0 && !facts.worker.timed_out) {
        facts.python_import = import_through_python(variant, run_options, scratch / ("import-" + stem));
        if (options.tests)
          facts.tests = run_kernel_tests(tree, variant, repository, run_options, scratch / ("tests-" + stem));
      }
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
    dynamic.runs.push_back(variant_run(variant));
    for (OpVerification& op : op_verifications(variant)) dynamic.ops.push_back(std::move(op));
    if (facts.tests)
      for (const TestCaseFact& test : facts.tests->cases)
        dynamic.tests.push_back({variant.directory_name, test.id, test.outcome, test.message, test.seconds});
    if (facts.seed && facts.ops_planned) dynamic.seed = facts.seed;
    if (facts.worker.containment && dynamic.containment.empty())
      dynamic.containment = facts.worker.containment->describe();
    if (!facts.device_name.empty())
      dynamic.devices.push_back({variant.directory_name, facts.device_name, facts.device_backend,
                                 facts.copy_bandwidth_gbs, facts.matmul_tflops, facts.matmul_dtype});
    for (const OpRunFact& op : facts.ops)
      for (const OpCheckFact& check : op.checks) {
        // A dtype the op refused, or a case without expected outputs, compared nothing: ops[] says why.
        if (check.unsupported || !check.reference_problem.empty()) continue;
        dynamic.op_checks.push_back({variant.directory_name, op.op, check.dtype, check.shape,
                                     std::max(check.max_abs_error, 0.0), std::max(check.relative_error, 0.0),
                                     check.passed});
      }
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
      result.output_placements = benchmark.output_placements;
      dynamic.benchmarks.push_back(std::move(result));
    }
  }
  return dynamic;
}

}  // namespace kcheck
