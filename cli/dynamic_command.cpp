// `kcheck run PATH` and `kcheck bench PATH`: each variant loaded in its own
// kcheck_worker process (KD, KO006), its ops checked against the references,
// and with `bench` timed (KB).
#include <cstdlib>
#include <iostream>

#include "checker/audit/audit.h"
#include "checker/harness/compiled_baselines.h"
#include "checker/harness/dynamic_audit.h"
#include "checker/harness/harness.h"
#include "checker/report/display_text.h"
#include "cli/commands.h"
#include "cli/invocation.h"

namespace kcheck::cli {

namespace {

namespace fs = std::filesystem;

// --compile's list: known modes, or "none" alone for no torch.compile baseline.
std::vector<std::string> compile_modes(const std::vector<std::string>& given) {
  if (given.size() == 1 && given[0] == "none") return {};
  for (const std::string& mode : given)
    if (!known_compile_mode(mode))
      throw std::invalid_argument("--compile: '" + mode +
                                  "' is no torch.compile mode (default, reduce-overhead, max-autotune, "
                                  "max-autotune-no-cudagraphs) and not 'none'");
  return given;
}

// The Torches `kcheck run` runs against, one per --python (default: the
// active virtual environment's Python, else python3 on PATH), each with its
// worker; a worker not yet built is built now, said on stderr.
std::vector<TorchRuntime> torch_runtimes(const std::vector<std::string>& given) {
  std::vector<fs::path> pythons;
  for (const std::string& python : given) {
    if (python == "none") {
      pythons.emplace_back();
      continue;
    }
    fs::path resolved = resolve_python(python, std::getenv("PATH"));
    if (resolved.empty()) throw std::invalid_argument("--python: no '" + python + "' on PATH");
    pythons.push_back(std::move(resolved));
  }
  if (pythons.empty()) pythons.push_back(default_python(std::getenv("VIRTUAL_ENV"), std::getenv("PATH")));
  const WorkerBuildSettings settings = worker_build_settings(std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"),
                                                             std::getenv("CXX"), std::getenv("PATH"));
  std::vector<TorchRuntime> runtimes;
  runtimes.reserve(pythons.size());
  for (const fs::path& python : pythons)
    runtimes.push_back(prepare_runtime(
        python, settings, [](const std::string& message) { std::cerr << "kcheck: " << message << std::endl; }));
  return runtimes;
}

std::chrono::milliseconds milliseconds(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
}

}  // namespace

void DynamicCommand::add_to(CLI::App& parent) {
  app = bench ? add_command(parent, "bench",
                            "kcheck run, then time each op against its reference and the device (KB rules)")
              : add_command(parent, "run", "load each variant in a worker process and check its ops (KD, KO006 rules)");
  app->add_option("path", path, "kernel repository, build directory or one variant")->capture_default_str();
  app->add_option("--timeout", timeout_seconds, "seconds per variant (default: 120, bench 900)");
  app->add_option("--seed", seed, "seed of the random inputs (default: fresh, recorded in the report)");
  app->add_option("--sizes", sizes, "named sizes of the op specs (default: small,medium on CPU, all on a GPU)")
      ->delimiter(',');
  app->add_option("--python", pythons,
                  "Python whose Torch runs the variants (kcheck_worker is built against it on first use, and "
                  "cached) and the import check (KD006), Python references and --tests; repeat it for variants "
                  "of several Torch versions (default: the active virtual environment's, else python3 on PATH; "
                  "none: no Python)")
      ->allow_extra_args(false);
  app->add_option("--pass-env", pass_environment,
                  "give the kernel's code this variable of kcheck's environment (by default it gets only those "
                  "that select devices, threads, locale and libraries: no token or other secret)")
      ->allow_extra_args(false);
  app->add_flag("--allow-network", allow_network,
                "let the kernel's code reach the network (by default it runs in a network namespace of its own)");
  app->add_flag("--no-sandbox", no_sandbox,
                "run the kernel's code even where this machine refuses the sandbox's namespaces: it can then "
                "read your files and reach the network (never for untrusted kernels)");
  app->add_flag("--require-verified", require_verified,
                "an op that was not verified is an error (KD007), not a warning");
  // A flag whose value, if any, follows '=': `--tests PATH` must not take PATH as its folder.
  app->add_flag("--tests{tests}", tests,
                "run the kernel's own pytest suite against each variant (KD008): --tests for the repository's "
                "tests/, --tests=DIR for another folder");
  app->add_option("--tests-timeout", tests_timeout_seconds, "seconds for one variant's tests")->capture_default_str();
  app->add_option("--worker-file-size", worker_file_size,
                  "largest file the kernel's code may write (RLIMIT_FSIZE; default 1G, e.g. 64M); its working "
                  "directory holds twice that in all, /tmp, /var/tmp and /dev/shm that much each")
      ->transform(CLI::AsSizeValue(false));
  if (!bench) return;
  app->add_option("--samples", samples, "timed samples per op, size and dtype")->capture_default_str();
  app->add_option("--baseline", baseline, "a saved JSON report of an earlier bench (KB002)");
  app->add_option("--regression-threshold", regression_threshold, "percent slower than the baseline (KB002)")
      ->capture_default_str();
  app->add_option("--compile", compile_modes,
                  "torch.compile modes each op's baseline is compiled in and timed, through --python; none: skip")
      ->delimiter(',')
      ->capture_default_str();
  app->add_option("--compile-timeout", compile_timeout_seconds, "seconds for all torch.compile baselines of a variant")
      ->capture_default_str();
}

int DynamicCommand::run(const ReportArguments& arguments) const {
  const std::string name = bench ? "bench" : "run";
  refuse_under_security(arguments, name);
  Invocation invocation = settle_invocation(arguments);
  if (samples < 1) throw std::invalid_argument("--samples must be at least 1");
  if (!(regression_threshold >= 0)) throw std::invalid_argument("--regression-threshold must be >= 0");
  if (!(compile_timeout_seconds > 0)) throw std::invalid_argument("--compile-timeout must be above 0");
  if (!(tests_timeout_seconds > 0)) throw std::invalid_argument("--tests-timeout must be above 0");
  HarnessOptions harness;
  harness.timeout = milliseconds(timeout_seconds > 0 ? timeout_seconds : bench ? 900 : 120);
  harness.bench = bench;
  harness.seed = seed;
  harness.sizes = sizes;
  harness.samples = samples;
  harness.baseline = baseline;
  harness.regression_threshold = regression_threshold / 100;
  if (worker_file_size) harness.max_file_size = worker_file_size;
  harness.compile_modes = cli::compile_modes(compile_modes);
  harness.compile_timeout = milliseconds(compile_timeout_seconds);
  // Fail closed: without namespaces the kernel's code could read the machine
  // and outlive the run, so it is not run unless the user says so.
  harness.require_sandbox = !no_sandbox;
  if (const std::string why = sandbox_unavailable(!allow_network); !why.empty() && !no_sandbox) {
    std::cerr << "kcheck " << name << ": " << why
              << ", so the kernel's code cannot be contained; refusing to run it (--no-sandbox runs it anyway, "
                 "for a kernel you trust)\n";
    return kExitUsage;
  }
  harness.runtimes = torch_runtimes(pythons);
  harness.pass_environment = pass_environment;
  harness.allow_network = allow_network;
  if (!tests.empty()) harness.tests = fs::path(tests);
  harness.tests_timeout = milliseconds(tests_timeout_seconds);
  invocation.policy.require_verified_ops = invocation.policy.require_verified_ops || require_verified;
  auto progress = terminal_progress();
  invocation.audit.progress = progress.get();
  harness.progress = progress.get();
  Report report = run_dynamic_audit(path, invocation.policy, invocation.audit, invocation.rules, harness);
  if (progress) progress->finish();
  if (report.dynamic.runs.empty()) {
    std::cerr << "kcheck " << name << ": nothing to run in " << path
              << ": no variant has a native module or, for a Python-only variant, a package to load\n";
    return kExitUsage;
  }
  emit(report, invocation.output);
  if (report.verdict() == Report::Verdict::not_run) {
    std::cerr << "kcheck " << name << ": no variant could be run here:\n";
    for (const VariantRun& run : report.dynamic.runs)
      std::cerr << "  " << display_safe(run.variant) << ": " << display_safe(run.reason) << "\n";
  }
  return report.gate_status();
}

}  // namespace kcheck::cli
