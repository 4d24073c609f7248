#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"
#include "checker/support/progress.h"
#include "checker/core/report.h"
#include "checker/core/rule_registry.h"
#include "checker/facts/tree_facts.h"
#include "checker/support/version.h"
#include "checker/harness/worker_build.h"

namespace kcheck {

// One Torch `kcheck run` can run variants against: a Python and the
// kcheck_worker built against that Python's Torch (worker_build.h).
struct TorchRuntime {
  std::filesystem::path python;  // empty: no Python (no import check, Python references or tests)
  std::filesystem::path worker;  // empty: none, and `problem` says why
  std::string worker_key;        // ProvisionedWorker::key, for the report
  std::string problem;           // why no variant can run against it
  // The directories of its Python and Torch the contained processes must
  // see (the rest of the host is hidden from them): the Python's prefixes
  // and import path, as its probe reports them.
  std::vector<std::filesystem::path> visible_paths;
};

// How `kcheck run` runs variants.
struct HarnessOptions {
  // The Torches to run against (--python, each with its worker): each
  // variant runs against the first whose Torch it fits. Empty: the one
  // Torch of `worker` and `python` below.
  std::vector<TorchRuntime> runtimes;
  std::filesystem::path worker = default_worker_path();  // kcheck_worker
  std::chrono::milliseconds timeout{60000};              // per variant
  std::size_t max_output = 64 * 1024;                    // per worker, tail kept
  std::filesystem::path scratch_dir;                     // result files; default: a temporary directory
  ProgressSink* progress = nullptr;                      // counts variants run

  // Ops: checked against reference/ops (+ the repository's kcheck-ops.toml)
  // after the load; timed too with `bench`.
  bool check_ops = true;
  bool bench = false;
  std::uint64_t seed = 0;            // 0 = a fresh random seed (recorded in the report)
  std::vector<std::string> sizes;    // named sizes to run; empty = small,medium on CPU, all on a GPU
  int samples = 30;                  // timed samples per op, size and dtype
  std::filesystem::path repository;  // where kcheck-ops.toml may be; default: the parent of build/
  std::filesystem::path python;      // KD006, Python references, --tests: this Python; empty = none
  // Host paths beside those kcheck derives (contained_run.h) that the
  // contained processes see, read-only.
  std::vector<std::filesystem::path> visible_paths;
  // `--tests [DIR]`: the kernel's own pytest suite run against each variant
  // that loaded (KD008); unset = not run. Relative to the repository.
  std::optional<std::filesystem::path> tests;
  std::chrono::milliseconds tests_timeout{1800000};  // per variant
  std::filesystem::path baseline;                    // KB002: a saved JSON report of an earlier bench
  // bench: the torch.compile modes each op's baseline is compiled in and timed
  // (compiled_baselines.h), through `python`; empty = none. One time bound
  // for all of a variant's compiles.
  std::vector<std::string> compile_modes = {"default", "max-autotune-no-cudagraphs"};
  std::chrono::milliseconds compile_timeout{900000};
  double regression_threshold = 0.10;  // KB002
  // Limits of the contained worker and Python import (process/process_containment.h).
  // Variables of kcheck's environment given to the kernel's code beside the
  // allow-list (process/process_containment.h): `--pass-env NAME`.
  std::vector<std::string> pass_environment;
  bool allow_network = false;                // --allow-network: the kernel's code keeps the machine's network
  bool require_sandbox = true;               // false (--no-sandbox): run it even where namespaces are refused
  std::uint64_t max_file_size = 1ull << 30;  // RLIMIT_FSIZE: a larger file ends its writer (SIGXFSZ)
  std::uint64_t cpu_address_space = 64ull
                                    << 30;  // RLIMIT_AS of CPU variants; none on devices (CUDA reserves terabytes)

  static std::filesystem::path default_worker_path();
};

// The Python `kcheck run` uses when --python is not given: the active virtual
// environment's (`virtual_env`, $VIRTUAL_ENV) when it has one, else the first
// python3 on `path` ($PATH); empty when there is neither. Never a path fixed
// when kcheck was built.
std::filesystem::path default_python(const char* virtual_env, const char* path);

// --python as given, made usable from inside the sandbox (whose working
// directory is its scratch): a path is made absolute, a bare name ("python3")
// is looked up on `path` ($PATH); empty when not found.
std::filesystem::path resolve_python(const std::string& given, const char* path);

// The runtime for `python` (empty: none): its Torch probed, and the worker
// for that Torch found or built (worker_build.h; `announce` is told before a
// build starts). Without a Python, the worker built with kcheck, if any.
TorchRuntime prepare_runtime(const std::filesystem::path& python, const WorkerBuildSettings& settings,
                             const std::function<void(const std::string&)>& announce = {});

// The libtorch the worker was built against, as the worker itself reports it.
struct LocalTorch {
  bool available = false;
  std::string problem;  // why not
  Version version;      // 2.11.0
  std::string version_text;
  bool cxx11_abi = true;
  std::vector<std::string> backends;  // "cpu", ...
};
LocalTorch query_local_torch(const std::filesystem::path& worker);

// Why `variant` cannot run against `torch` here ("" when it can).
std::string why_not_runnable(const VariantFacts& variant, const LocalTorch& torch);

// Which of `torches` `variant` runs against: the first that fits, or nullopt
// with every Torch's reason in `why_not` (each after its label, e.g. its
// Python, when there are several).
std::optional<std::size_t> runtime_for(const VariantFacts& variant, const std::vector<LocalTorch>& torches,
                                       const std::vector<std::string>& labels, std::string& why_not);

// Fills every compiled variant's `harness` facts: one worker process per
// variant, each bounded by the timeout; a variant that cannot run here gets
// `skipped_because`. Variants without a native module are left alone.
// Also records in `tree.collected` that the kernel ran (and, with bench, was timed).
void run_harness(TreeFacts& tree, const HarnessOptions& options);

// The report's `dynamic` member from the facts `run_harness` filled.
DynamicResults dynamic_results(const TreeFacts& tree);

}  // namespace kcheck
