#include "checker/harness/harness.h"

#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "checker/audit/audit.h"
#include "checker/core/kernel_identity.h"
#include "checker/core/bounded_process.h"

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

// The worker's result file into the facts; false when it cannot be read.
bool read_result(const fs::path& path, HarnessFacts& facts) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  json result = json::parse(file, nullptr, false);
  if (result.is_discarded() || !result.is_object()) {
    facts.harness_problem = "the worker's result file is not JSON";
    return true;
  }
  std::string stage = result.value("stage", "");
  facts.load_started = true;
  if (stage == "load_failed") facts.load_error = result.value("load_error", "dlopen failed");
  if (stage == "loaded") {
    facts.loaded = true;
    facts.new_ops = read_ops(result.value("new_ops", json::array()));
    facts.changed_ops = read_ops(result.value("changed_ops", json::array()));
    if (result.contains("new_fallbacks") && result["new_fallbacks"].is_array())
      for (const json& key : result["new_fallbacks"])
        if (key.is_string()) facts.new_fallbacks.push_back(key.get<std::string>());
  }
  return true;
}

fs::path make_scratch_dir(const HarnessOptions& options) {
  if (!options.scratch_dir.empty()) {
    fs::create_directories(options.scratch_dir);
    return options.scratch_dir;
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
    torch.problem = "kcheck_worker is not built (no Torch in the repository's .venv when kcheck was configured)";
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
  if (name.kind != VariantKind::torch)
    return "only torch<version>-cxx11 variants run so far; this one needs a " +
           std::string(name.kind == VariantKind::torch_stable_abi ? "Torch stable-ABI" : "tvm-ffi") + " harness";
  std::string needs;
  auto add = [&needs](const std::string& what) { needs += (needs.empty() ? "" : ", ") + what; };
  if (name.framework_version.major() != torch.version.major() ||
      name.framework_version.minor() != torch.version.minor())
    add("Torch " + name.framework_version.str() + " (kcheck_worker is built against Torch " + torch.version_text + ")");
  bool wants_cxx11 = name.cxx_tag == "cxx11";
  if (wants_cxx11 != torch.cxx11_abi)
    add(std::string("the ") + (wants_cxx11 ? "cxx11" : "pre-cxx11 (cxx98)") + " C++ ABI of libtorch");
  bool backend_here = false;
  for (const std::string& backend : torch.backends) backend_here = backend_here || backend == name.backend;
  if (!backend_here) add("the " + name.backend + " backend (present here: cpu" + ")");
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
  std::size_t index = 0;
  for (VariantFacts& variant : tree.variants) {
    if (variant.name && !variant.name->compiled()) continue;  // python-only: nothing to load
    const NativeModuleFacts* module = loadable_module(variant);
    if (!module) continue;  // no native module: the static rules say so
    HarnessFacts facts;
    facts.module_relative_path = module->relative_path;
    facts.own_namespace = variant_kernel_id(variant).value_or("");
    facts.skipped_because = why_not_runnable(variant, torch);
    if (facts.skipped_because.empty()) {
      fs::path result = scratch / ("result-" + std::to_string(index++) + ".json");
      std::error_code ignored;
      fs::remove(result, ignored);
      facts.worker = run_bounded({options.worker.string(), "--result", result.string(),
                                  (variant.path / module->relative_path).string()},
                                 {options.timeout, options.max_output}, variant.path);
      if (!facts.worker.started) facts.harness_problem = facts.worker.output;
      else if (!read_result(result, facts) && facts.worker.exit_code == 0)
        facts.harness_problem = "kcheck_worker wrote no result";
      fs::remove(result, ignored);
    }
    variant.harness = std::move(facts);
    report_progress(options.progress, ProgressCounter::variants_run);
  }
  if (options.scratch_dir.empty()) {
    std::error_code ignored;
    fs::remove_all(scratch, ignored);
  }
}

Report run_dynamic_audit(const fs::path& input, const Policy& policy, AuditOptions options, const RuleRegistry& rules,
                         const HarnessOptions& harness) {
  if (options.selection.select.empty()) options.selection.select = {"KD", "KO006"};
  TreeFacts tree = collect_facts(input, options);
  run_harness(tree, harness);
  return judge(tree, policy, options, rules);
}

}  // namespace kcheck
