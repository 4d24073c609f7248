#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checker/core/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/progress.h"
#include "checker/core/report.h"
#include "checker/core/rule_registry.h"
#include "checker/facts/tree_facts.h"
#include "checker/core/version.h"

namespace kcheck {

// How `kcheck run` runs variants.
struct HarnessOptions {
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
  // Limits of the contained worker and Python import (core/process_containment.h).
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

// The libtorch the worker was built against, as the worker itself reports it.
struct LocalTorch {
  bool available = false;
  std::string problem;  // why not
  Version version;      // 2.11.0
  std::string version_text;
  bool cxx11_abi = true;
  std::vector<std::string> backends;  // "cpu", ...
};
LocalTorch query_local_torch(const HarnessOptions& options);

// Why `variant` cannot run against `torch` here ("" when it can).
std::string why_not_runnable(const VariantFacts& variant, const LocalTorch& torch);

// Fills every compiled variant's `harness` facts: one worker process per
// variant, each bounded by the timeout; a variant that cannot run here gets
// `skipped_because`. Variants without a native module are left alone.
void run_harness(TreeFacts& tree, const HarnessOptions& options);

// The report's `dynamic` member from the facts `run_harness` filled.
DynamicResults dynamic_results(const TreeFacts& tree);

}  // namespace kcheck
