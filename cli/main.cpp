// The kcheck executable: parses arguments and wires them to the library.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>

#include "checker/audit/audit.h"
#include "checker/audit/repository_settings.h"
#include "checker/core/display_text.h"
#include "checker/core/spelling.h"
#include "checker/elf/needed_closure.h"
#include "checker/builder/kernel_builder.h"
#include "checker/builder/kernel_source_from_config.h"
#include "checker/harness/dynamic_audit.h"
#include "checker/harness/compiled_baselines.h"
#include "checker/harness/harness.h"
#include "checker/layout/tree_walker.h"
#include "checker/metadata/digest.h"
#include "checker/report/explain_format.h"
#include "checker/report/render.h"
#include "checker/report/saved_report.h"
#include "checker/report/terminal_progress.h"
#include "checker/scan/hub_cache.h"
#include "checker/scan/report_directory.h"
#include "checker/scan/scan.h"

namespace {

// The running kcheck's own path (for what is found beside it); empty if unknown.
std::filesystem::path running_executable() {
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path() : self;
}

namespace fs = std::filesystem;

constexpr int kExitUsage = 2;  // kcheck could not do its job

// Options every audit takes (the audit itself, `config` and `build`).
struct ReportArguments {
  std::string policy;  // "": the repository's `policy` setting, else hub
  std::string format = "text";
  std::string output;
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  bool strict = false;
  bool security = false;
  bool no_repo_config = false;             // suppressions in the repository are reported, not applied
  bool local_build = false;                // required variants this machine cannot build are a note (KL006)
  std::vector<std::string> library_paths;  // --library-path: libraries at hand for KE015
  std::string repo_id;
  unsigned threads = 0;
  // Walk bounds; 0 keeps the default (kcheck::WalkLimits; a lower file size under --security).
  std::uint64_t max_file_size = 0;
  std::size_t max_files = 0;
  std::size_t max_depth = 0;
  std::string sarif_root;  // "": SARIF URIs relative to the audited root
  // What text, github and concise list: --show-notes, --min-severity; --quiet.
  bool show_notes = false;
  std::string min_severity;  // "": text hides notes, the line formats list everything
  bool quiet = false;
  std::string rules_url;  // where docs/rules.md is published: SARIF helpUri
};

struct BuildArguments {
  std::string kernel_dir = ".";
  std::vector<std::string> backends;
  std::vector<std::string> cuda_capabilities;
  std::vector<std::string> rocm_archs;
  std::string torch;
  std::string cuda;
  std::string rocm;
  std::string unique_id;
  std::string output_dir;
  std::string scratch_dir;
  std::string deps_dir;
  unsigned build_timeout_seconds = 0;  // 0: two hours
  bool rocm_audit_fixtures = false;    // ROCm against a non-ROCm Torch's headers (modules no ROCm Torch loads)
};

// `kcheck scan` and `kcheck merge`.
struct ScanArguments {
  std::vector<std::string> roots;
  std::string cache_dir;
  bool no_cache = false;
  std::string shard;
  std::string report_dir;
  bool stats = false;
  unsigned repo_timeout_seconds = kcheck::ScanOptions::kDefaultRepositoryTimeout.count();  // 0: none
};

std::string format_list() {
  std::string formats;
  for (const std::string& name : kcheck::output_format_names()) formats += (formats.empty() ? "" : ", ") + name;
  return formats;
}

void add_report_options(CLI::App& app, ReportArguments& arguments) {
  app.add_option(
      "--policy", arguments.policy,
      "policy name (hub, hub-legacy) or policy file (default: the repository's kcheck.toml policy, else hub)");
  app.add_option("--format", arguments.format, "output format: " + format_list())->capture_default_str();
  app.add_option("-o,--output", arguments.output, "write the report to FILE instead of standard output");
  // One value per occurrence (CODE[,CODE]), repeatable, so a following PATH is not swallowed.
  app.add_option("--select", arguments.select, "only these codes or prefixes (CODE[,CODE])")->allow_extra_args(false);
  app.add_option("--ignore", arguments.ignore, "skip these codes or prefixes (CODE[,CODE])")->allow_extra_args(false);
  app.add_flag("--strict", arguments.strict, "warnings fail the gate too");
  app.add_flag("--security", arguments.security,
               "Hub-side profile: KP006 is an error, structured output only (json, sarif, junit), "
               "never builds or runs kernel code, 2G file size bound");
  app.add_option("--max-file-size", arguments.max_file_size, "larger files are reported (KL007), not read (e.g. 512M)")
      ->transform(CLI::AsSizeValue(false));
  app.add_option("--max-files", arguments.max_files, "entries walked per variant (default 200000)");
  app.add_option("--max-depth", arguments.max_depth, "directory levels walked per variant (default 64)");
  app.add_option("--repo-id", arguments.repo_id, "Hub repository owner/name, compared with metadata name (KM005)");
  app.add_option("--threads", arguments.threads, "worker threads (0 = one per hardware thread)");
  app.add_flag("--show-notes", arguments.show_notes,
               "list notes and suppressed findings in text output (counted otherwise)");
  app.add_option("--min-severity", arguments.min_severity,
                 "list only findings of this severity or above in text, github and concise output "
                 "(note, warning, error; the gate and the other formats are unchanged)");
  app.add_flag("-q,--quiet", arguments.quiet, "text output: the findings only, no heading or summary line");
  app.add_option("--rules-url", arguments.rules_url,
                 "where docs/rules.md is published (e.g. https://github.com/OWNER/kcheck/blob/TAG/docs/rules.md): "
                 "SARIF links each rule to its section there (helpUri)");
  app.add_option("--sarif-root", arguments.sarif_root,
                 "SARIF (and github, concise) paths relative to this directory: the repository root a "
                 "code-scanning service shows (default for github/concise: the current directory)");
}

bool colour_wanted(const std::string& output) {
  if (!output.empty() || std::getenv("NO_COLOR")) return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

std::vector<std::string> split_list(const std::vector<std::string>& items) {
  std::vector<std::string> values;
  for (const std::string& item : items) {
    std::stringstream stream(item);
    for (std::string value; std::getline(stream, value, ',');)
      if (!value.empty()) values.push_back(value);
  }
  return values;
}

void write_output(const std::string& text, const std::string& output) {
  if (output.empty()) {
    std::cout << text;
    return;
  }
  std::ofstream file(output, std::ios::binary);
  file << text;
  if (!file) throw std::runtime_error("cannot write " + output);
}

// Rejects --select/--ignore entries that name no rule and are no prefix of one.
void check_codes_known(const std::vector<std::string>& codes, const kcheck::RuleRegistry& rules) {
  for (const std::string& code : codes)
    if (!rules.names_a_rule(code))
      throw std::invalid_argument("no rule code matches '" + code + "' (see `kcheck rules`)");
}

kcheck::AuditOptions audit_options(const ReportArguments& arguments, const kcheck::RuleRegistry& rules) {
  kcheck::AuditOptions options;
  options.selection = {split_list(arguments.select), split_list(arguments.ignore)};
  check_codes_known(options.selection.select, rules);
  check_codes_known(options.selection.ignore, rules);
  options.strict = arguments.strict;
  options.security = arguments.security;
  options.apply_repository_suppressions = !arguments.security && !arguments.no_repo_config;
  options.local_build = arguments.local_build && !arguments.security;  // an upload is never a local build
  options.policy_from_command_line = !arguments.policy.empty();
  options.repo_id = arguments.repo_id;
  options.threads = arguments.threads;
  for (const std::string& directory : arguments.library_paths) options.library_directories.emplace_back(directory);
  if (!options.library_directories.empty())
    for (fs::path& directory : kcheck::system_library_directories())
      options.library_directories.push_back(std::move(directory));
  if (arguments.security) options.limits.max_file_size = kcheck::WalkLimits::kSecurityMaxFileSize;
  if (arguments.max_file_size) options.limits.max_file_size = arguments.max_file_size;
  if (arguments.max_files) options.limits.max_entries = arguments.max_files;
  if (arguments.max_depth) options.limits.max_depth = arguments.max_depth;
  return options;
}

// The policy --policy names, else hub (a repository's kcheck.toml may name
// another: the audit applies it where --policy is not given).
kcheck::Policy command_line_policy(const ReportArguments& arguments) {
  return kcheck::load_policy(arguments.policy.empty() ? "hub" : arguments.policy);
}

// --security (Hub side) never builds or loads the kernel's code.
void refuse_under_security(const ReportArguments& arguments, const std::string& command) {
  if (arguments.security)
    throw std::invalid_argument("`kcheck " + command + "` executes kernel code; --security forbids it");
}

// The least severity text, github and concise list: --min-severity, else
// text hides notes unless --show-notes, the line formats list everything.
kcheck::Severity least_shown(const ReportArguments& arguments, kcheck::OutputFormat format) {
  if (!arguments.min_severity.empty()) {
    if (auto severity = kcheck::parse_severity(arguments.min_severity)) return *severity;
    throw std::invalid_argument("unknown --min-severity '" + arguments.min_severity + "' (note, warning, error)");
  }
  if (format == kcheck::OutputFormat::text && !arguments.show_notes) return kcheck::Severity::warning;
  return kcheck::Severity::note;
}

kcheck::OutputFormat output_format(const ReportArguments& arguments) {
  auto format = kcheck::parse_output_format(arguments.format);
  if (!format) {
    std::string names;
    for (const std::string& name : kcheck::output_format_names()) names += (names.empty() ? "" : ", ") + name;
    throw std::invalid_argument("unknown --format '" + arguments.format + "' (one of " + names + ")");
  }
  least_shown(arguments, *format);  // a bad --min-severity is refused before the work
  // Hub side: nothing from the upload reaches a terminal or a markup renderer as is.
  const bool structured = *format == kcheck::OutputFormat::json || *format == kcheck::OutputFormat::sarif ||
                          *format == kcheck::OutputFormat::junit;
  if (arguments.security && !structured)
    throw std::invalid_argument("--security writes structured output only: --format json, sarif or junit");
  return *format;
}

// How every report of this command is rendered: one place for emit and the
// per-repository reports of `kcheck scan --report-dir`.
kcheck::RenderOptions render_options(const ReportArguments& arguments, kcheck::OutputFormat format, bool colour) {
  kcheck::RenderOptions options{{colour}, kcheck::rule_catalogue(kcheck::make_rule_registry())};
  const bool line_format = format == kcheck::OutputFormat::github || format == kcheck::OutputFormat::concise;
  const fs::path reader_root = arguments.sarif_root.empty() ? fs::current_path() : fs::absolute(arguments.sarif_root);
  if (!arguments.sarif_root.empty() || line_format)
    options.source_root = reader_root;  // clickable from where kcheck ran
  options.text.relative_to = reader_root;
  options.text.least_shown = least_shown(arguments, format);
  options.text.quiet = arguments.quiet;
  options.rules_url = arguments.rules_url;
  return options;
}

void emit(const kcheck::Report& report, const ReportArguments& arguments) {
  const kcheck::OutputFormat format = output_format(arguments);
  write_output(
      kcheck::render_report(report, format, render_options(arguments, format, colour_wanted(arguments.output))),
      arguments.output);
}

// A progress line on stderr while the work runs, only when stderr is a
// terminal (not a dumb one); nothing otherwise.
std::unique_ptr<kcheck::TerminalProgress> terminal_progress() {
  const char* term = std::getenv("TERM");
  if (::isatty(STDERR_FILENO) != 1 || (term && std::string_view(term) == "dumb")) return nullptr;
  return std::make_unique<kcheck::TerminalProgress>(std::cerr, [] { return std::chrono::steady_clock::now(); });
}

// $XDG_CACHE_HOME/kcheck, else ~/.cache/kcheck; "" (no cache) when neither is set.
std::string default_cache_directory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return (fs::path(xdg) / "kcheck").string();
  if (const char* home = std::getenv("HOME"); home && *home) return (fs::path(home) / ".cache" / "kcheck").string();
  return "";
}

// A command-line input that names no local path but a Hub repository
// (`ORG/NAME[@REVISION]`), or nothing.
std::optional<kcheck::HubReference> hub_reference(const std::string& input) {
  std::error_code error;
  if (fs::exists(fs::symlink_status(input, error))) return std::nullopt;
  return kcheck::parse_hub_reference(input);
}

// Its snapshot in the local Hugging Face cache; refused (exit 2) with the
// command that downloads it when it is not there.
kcheck::HubSnapshot hub_snapshot(const kcheck::HubReference& reference) {
  kcheck::HubSnapshot snapshot = kcheck::find_hub_snapshot(
      kcheck::hub_cache_directory([](const char* name) -> const char* { return std::getenv(name); }), reference);
  if (!snapshot.problem.empty()) throw std::invalid_argument(snapshot.problem);
  return snapshot;
}

fs::path kcheck_cache_directory() {
  const std::string cache = default_cache_directory();
  if (cache.empty()) throw std::invalid_argument("no cache directory for Hub snapshots (set HOME or XDG_CACHE_HOME)");
  return cache;
}

// A directory removed with everything in it when it goes out of scope.
struct RemovedAtEnd {
  fs::path path;
  RemovedAtEnd() = default;
  RemovedAtEnd(const RemovedAtEnd&) = delete;
  RemovedAtEnd& operator=(const RemovedAtEnd&) = delete;
  ~RemovedAtEnd() {
    std::error_code ignored;
    if (!path.empty()) fs::remove_all(path, ignored);
  }
};

// A fresh directory of this run's own for copies of Hub snapshots, under
// kcheck's cache (beside the Hugging Face cache, usually one file system):
// concurrent runs never share one.
fs::path private_hub_directory() {
  const fs::path parent = kcheck_cache_directory() / "hub";
  fs::create_directories(parent);
  std::string pattern = (parent / "run-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot make a directory in " + parent.string());
  return pattern;
}

// `kcheck check PATH`; with `sources_only`, the checks of a source
// repository even where it has a build/ (the pre-commit hook's).
int run_audit_command(const std::string& path, const ReportArguments& arguments, bool sources_only = false) {
  kcheck::RuleRegistry rules = kcheck::make_rule_registry();
  kcheck::AuditOptions options = audit_options(arguments, rules);
  output_format(arguments);  // reject a bad --format before the work
  kcheck::Policy policy = command_line_policy(arguments);
  auto progress = terminal_progress();
  options.progress = progress.get();
  std::error_code error;
  if (sources_only && !fs::exists(fs::path(path) / "build.toml", error))
    throw std::invalid_argument("no build.toml in " + path + ": --sources checks a kernel source repository");
  // `kcheck check ORG/NAME[@REVISION]`: the snapshot in the local Hugging Face
  // cache, copied into a directory of this run's own (removed at the end) and
  // audited as an upload: its variants, never only its sources.
  const std::optional<kcheck::HubReference> hub = hub_reference(path);
  fs::path audited = path;
  RemovedAtEnd hub_copy;
  if (hub) {
    const kcheck::HubSnapshot snapshot = hub_snapshot(*hub);
    hub_copy.path = private_hub_directory();
    audited = kcheck::materialise_snapshot(snapshot, hub_copy.path / "snapshot", options.limits);
    if (options.repo_id.empty()) options.repo_id = hub->repo_id;
    options.whole_download_command = kcheck::download_command(*hub);
  }
  kcheck::Report report = sources_only ? kcheck::run_source_audit(audited, policy, options, rules)
                          : hub        ? kcheck::run_audit_of_build(audited, policy, options, rules)
                                       : kcheck::run_audit(audited, policy, options, rules);
  if (hub) report.input = hub->repo_id + "@" + hub->revision;
  if (progress) progress->finish();
  emit(report, arguments);
  return report.gate_status();
}

int run_config_command(const std::string& kernel_dir, const ReportArguments& arguments) {
  kcheck::RuleRegistry rules = kcheck::make_rule_registry();
  kcheck::AuditOptions options = audit_options(arguments, rules);
  if (options.selection.select.empty()) options.selection.select = {"KC"};
  kcheck::Policy policy = command_line_policy(arguments);
  kcheck::TreeFacts tree = kcheck::collect_source_facts(kernel_dir);
  if (!tree.build_config->present) throw std::invalid_argument("no build.toml in " + kernel_dir);
  kcheck::Report report = kcheck::judge(tree, policy, options, rules);
  report.input = kernel_dir;
  emit(report, arguments);
  return report.gate_status();
}

int run_build_command(const BuildArguments& build, const ReportArguments& arguments) {
  refuse_under_security(arguments, "build");
  kcheck::RuleRegistry rules = kcheck::make_rule_registry();
  output_format(arguments);
  // The policy the kernel's kcheck.toml names, unless --policy: the variants are pinned to its ceilings.
  const kcheck::Policy policy =
      kcheck::policy_for_repository(build.kernel_dir, command_line_policy(arguments), audit_options(arguments, rules));
  // build.toml's own errors are findings (KC rules: the schema, a listed
  // source or the Python package missing), reported and gated as by `kcheck
  // config`: any error stops the build before CMake sees the kernel.
  kcheck::TreeFacts source = kcheck::collect_source_facts(build.kernel_dir);
  if (!source.build_config->present) throw std::invalid_argument("no build.toml in " + build.kernel_dir);
  {
    kcheck::AuditOptions options = audit_options(arguments, rules);
    options.selection.select = {"KC"};
    kcheck::Report report = kcheck::judge(source, policy, options, rules);
    // Errors about build.toml itself: kcheck.toml's (KC006, KC007) do not stop a build.
    const bool build_toml_errors =
        std::any_of(report.findings.begin(), report.findings.end(), [](const kcheck::Finding& finding) {
          return finding.severity == kcheck::Severity::error && fs::path(finding.file).filename() == "build.toml";
        });
    if (!source.build_config->usable() || build_toml_errors) {
      report.input = build.kernel_dir;
      std::cerr << "kcheck build: " << source.build_config->relative_path << " has errors; nothing was built\n";
      emit(report, arguments);
      return std::max(report.gate_status(), 1);
    }
  }
  kcheck::BuildRequest request;
  request.kernel = kcheck::kernel_source_from_config(*source.build_config);
  request.backends = split_list(build.backends);
  request.cuda_capabilities = split_list(build.cuda_capabilities);
  request.rocm_archs = split_list(build.rocm_archs);
  request.unique_id = build.unique_id;
  request.output_dir = build.output_dir.empty() ? fs::path(build.kernel_dir) / "build" : fs::path(build.output_dir);
  request.scratch_dir =
      build.scratch_dir.empty() ? fs::path(build.kernel_dir) / ".kcheck-scratch" : fs::path(build.scratch_dir);
  request.deps_dir = build.deps_dir;
  if (build.build_timeout_seconds > 0)
    request.build_timeout = std::chrono::seconds(static_cast<long long>(build.build_timeout_seconds));
  request.jobs = arguments.threads;
  request.self_audit = audit_options(arguments, rules);
  // Looked for only without --torch (the default asks python3 on PATH).
  const fs::path default_torch =
      build.torch.empty() ? kcheck::default_torch_environment(std::getenv("VIRTUAL_ENV"), running_executable())
                          : fs::path();
  kcheck::Toolchain toolchain = kcheck::detect_toolchain(build.torch, default_torch, build.cuda, build.rocm);
  toolchain.rocm_with_foreign_torch = build.rocm_audit_fixtures;
  // The self-audit resolves the modules' symbols against the libraries they were built against (KE015).
  if (request.self_audit.library_directories.empty())
    request.self_audit.library_directories = kcheck::library_directories(toolchain);
  kcheck::KernelBuild results = kcheck::build_kernel(request, toolchain, policy, rules, [](const std::string& line) {
    std::cerr << "kcheck build: " << line << "\n";
  });
  int status = 0;
  for (const kcheck::VariantBuild& variant : results.variants) {
    if (!variant.built) {
      std::cerr << "kcheck build: " << variant.variant << " failed: " << variant.failure << "\n";
      status = 1;
      continue;
    }
    for (const auto& pin : variant.pinning.pinned)
      std::cerr << "kcheck build: pinned " << pin.symbol << " " << pin.needed_version << " -> " << pin.pinned_version
                << "\n";
    for (const auto& substitute : variant.pinning.substituted)
      std::cerr << "kcheck build: substituted " << substitute.symbol << "\n";
    emit(variant.audit, arguments);
    status = std::max(status, variant.audit.gate_status());
  }
  return status;
}

// The options `kcheck run` and `kcheck bench` share.
struct DynamicArguments {
  std::string path = ".";
  double timeout_seconds = 0;  // 0 = 120 for run, 900 for bench
  std::uint64_t seed = 0;
  std::vector<std::string> sizes;
  std::vector<std::string> pass_environment;  // --pass-env NAME ...
  bool allow_network = false;
  bool no_sandbox = false;  // run even where the sandbox's namespaces are refused
  // --python, repeatable; empty = the active virtual environment's, else python3 on PATH; "none" = no Python
  std::vector<std::string> pythons;
  bool require_verified = false;  // KD007 an error
  std::string tests;              // --tests[=DIR]: DIR; "" = not asked for
  double tests_timeout_seconds = 1800;
  int samples = 30;
  std::string baseline;
  double regression_threshold = 10;                                                    // percent
  std::uint64_t worker_file_size = 0;                                                  // 0: HarnessOptions' default
  std::vector<std::string> compile_modes = {"default", "max-autotune-no-cudagraphs"};  // "none": no torch.compile
  double compile_timeout_seconds = 900;
};

void add_dynamic_options(CLI::App& command, DynamicArguments& arguments, bool bench) {
  command.add_option("path", arguments.path, "kernel repository, build directory or one variant")
      ->capture_default_str();
  command.add_option("--timeout", arguments.timeout_seconds, "seconds per variant (default: 120, bench 900)");
  command.add_option("--seed", arguments.seed, "seed of the random inputs (default: fresh, recorded in the report)");
  command
      .add_option("--sizes", arguments.sizes,
                  "named sizes of the op specs (default: small,medium on CPU, all on a GPU)")
      ->delimiter(',');
  command
      .add_option("--python", arguments.pythons,
                  "Python whose Torch runs the variants (kcheck_worker is built against it on first use, and "
                  "cached) and the import check (KD006), Python references and --tests; repeat it for variants "
                  "of several Torch versions (default: the active virtual environment's, else python3 on PATH; "
                  "none: no Python)")
      ->allow_extra_args(false);
  command
      .add_option("--pass-env", arguments.pass_environment,
                  "give the kernel's code this variable of kcheck's environment (by default it gets only those "
                  "that select devices, threads, locale and libraries: no token or other secret)")
      ->allow_extra_args(false);
  command.add_flag("--allow-network", arguments.allow_network,
                   "let the kernel's code reach the network (by default it runs in a network namespace of its own)");
  command.add_flag("--no-sandbox", arguments.no_sandbox,
                   "run the kernel's code even where this machine refuses the sandbox's namespaces: it can then "
                   "read your files and reach the network (never for untrusted kernels)");
  command.add_flag("--require-verified", arguments.require_verified,
                   "an op that was not verified is an error (KD007), not a warning");
  // A flag whose value, if any, follows '=': `--tests PATH` must not take PATH as its folder.
  command.add_flag("--tests{tests}", arguments.tests,
                   "run the kernel's own pytest suite against each variant (KD008): --tests for the repository's "
                   "tests/, --tests=DIR for another folder");
  command.add_option("--tests-timeout", arguments.tests_timeout_seconds, "seconds for one variant's tests")
      ->capture_default_str();
  command
      .add_option("--worker-file-size", arguments.worker_file_size,
                  "largest file the kernel's code may write (RLIMIT_FSIZE; default 1G, e.g. 64M); its working "
                  "directory holds twice that in all, /tmp, /var/tmp and /dev/shm that much each")
      ->transform(CLI::AsSizeValue(false));
  if (!bench) return;
  command.add_option("--samples", arguments.samples, "timed samples per op, size and dtype")->capture_default_str();
  command.add_option("--baseline", arguments.baseline, "a saved JSON report of an earlier bench (KB002)");
  command
      .add_option("--regression-threshold", arguments.regression_threshold, "percent slower than the baseline (KB002)")
      ->capture_default_str();
  command
      .add_option("--compile", arguments.compile_modes,
                  "torch.compile modes each op's baseline is compiled in and timed, through --python; none: skip")
      ->delimiter(',')
      ->capture_default_str();
  command
      .add_option("--compile-timeout", arguments.compile_timeout_seconds,
                  "seconds for all torch.compile baselines of a variant")
      ->capture_default_str();
}

// --compile's list: known modes, or "none" alone for no torch.compile baseline.
std::vector<std::string> compile_modes(const std::vector<std::string>& given) {
  if (given.size() == 1 && given[0] == "none") return {};
  for (const std::string& mode : given)
    if (!kcheck::known_compile_mode(mode))
      throw std::invalid_argument("--compile: '" + mode +
                                  "' is no torch.compile mode (default, reduce-overhead, max-autotune, "
                                  "max-autotune-no-cudagraphs) and not 'none'");
  return given;
}

// The Torches `kcheck run` runs against, one per --python (default: the
// active virtual environment's Python, else python3 on PATH), each with its
// worker; a worker not yet built is built now, said on stderr.
std::vector<kcheck::TorchRuntime> torch_runtimes(const std::vector<std::string>& given) {
  std::vector<fs::path> pythons;
  for (const std::string& python : given) {
    if (python == "none") {
      pythons.emplace_back();
      continue;
    }
    fs::path resolved = kcheck::resolve_python(python, std::getenv("PATH"));
    if (resolved.empty()) throw std::invalid_argument("--python: no '" + python + "' on PATH");
    pythons.push_back(std::move(resolved));
  }
  if (pythons.empty()) pythons.push_back(kcheck::default_python(std::getenv("VIRTUAL_ENV"), std::getenv("PATH")));
  const kcheck::WorkerBuildSettings settings = kcheck::worker_build_settings(
      std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"), std::getenv("CXX"), std::getenv("PATH"));
  std::vector<kcheck::TorchRuntime> runtimes;
  runtimes.reserve(pythons.size());
  for (const fs::path& python : pythons)
    runtimes.push_back(kcheck::prepare_runtime(
        python, settings, [](const std::string& message) { std::cerr << "kcheck: " << message << std::endl; }));
  return runtimes;
}

// `kcheck run` / `kcheck bench`: loads each variant in its own kcheck_worker
// process (KD, KO006), checks its ops against the references, and with
// `bench` times them (KB).
int run_dynamic_command(const DynamicArguments& dynamic, bool bench, const ReportArguments& arguments) {
  refuse_under_security(arguments, bench ? "bench" : "run");
  kcheck::RuleRegistry rules = kcheck::make_rule_registry();
  kcheck::AuditOptions options = audit_options(arguments, rules);
  output_format(arguments);
  double timeout = dynamic.timeout_seconds > 0 ? dynamic.timeout_seconds : bench ? 900 : 120;
  if (dynamic.samples < 1) throw std::invalid_argument("--samples must be at least 1");
  if (!(dynamic.regression_threshold >= 0)) throw std::invalid_argument("--regression-threshold must be >= 0");
  kcheck::Policy policy = command_line_policy(arguments);
  kcheck::HarnessOptions harness;
  harness.timeout = std::chrono::milliseconds(static_cast<long long>(timeout * 1000));
  harness.bench = bench;
  harness.seed = dynamic.seed;
  harness.sizes = dynamic.sizes;
  harness.samples = dynamic.samples;
  harness.baseline = dynamic.baseline;
  harness.regression_threshold = dynamic.regression_threshold / 100;
  if (dynamic.worker_file_size) harness.max_file_size = dynamic.worker_file_size;
  harness.compile_modes = compile_modes(dynamic.compile_modes);
  if (!(dynamic.compile_timeout_seconds > 0)) throw std::invalid_argument("--compile-timeout must be above 0");
  harness.compile_timeout = std::chrono::milliseconds(static_cast<long long>(dynamic.compile_timeout_seconds * 1000));
  // Fail closed: without namespaces the kernel's code could read the machine
  // and outlive the run, so it is not run unless the user says so.
  harness.require_sandbox = !dynamic.no_sandbox;
  if (const std::string why = kcheck::sandbox_unavailable(!dynamic.allow_network);
      !why.empty() && !dynamic.no_sandbox) {
    std::cerr << "kcheck " << (bench ? "bench" : "run") << ": " << why
              << ", so the kernel's code cannot be contained; refusing to run it (--no-sandbox runs it anyway, "
                 "for a kernel you trust)\n";
    return 2;
  }
  harness.runtimes = torch_runtimes(dynamic.pythons);
  harness.pass_environment = dynamic.pass_environment;
  harness.allow_network = dynamic.allow_network;
  if (!dynamic.tests.empty()) harness.tests = fs::path(dynamic.tests);
  if (!(dynamic.tests_timeout_seconds > 0)) throw std::invalid_argument("--tests-timeout must be above 0");
  harness.tests_timeout = std::chrono::milliseconds(static_cast<long long>(dynamic.tests_timeout_seconds * 1000));
  policy.require_verified_ops = policy.require_verified_ops || dynamic.require_verified;
  auto progress = terminal_progress();
  options.progress = progress.get();
  harness.progress = progress.get();
  kcheck::Report report = kcheck::run_dynamic_audit(dynamic.path, policy, options, rules, harness);
  if (progress) progress->finish();
  if (report.dynamic.runs.empty()) {
    std::cerr << "kcheck " << (bench ? "bench" : "run") << ": nothing to run in " << dynamic.path
              << ": no variant has a native module or, for a Python-only variant, a package to load\n";
    return 2;
  }
  emit(report, arguments);
  if (report.verdict() == kcheck::Report::Verdict::not_run) {
    std::cerr << "kcheck " << (bench ? "bench" : "run") << ": no variant could be run here:\n";
    for (const kcheck::VariantRun& run : report.dynamic.runs)
      std::cerr << "  " << kcheck::display_safe(run.variant) << ": " << kcheck::display_safe(run.reason) << "\n";
  }
  return report.gate_status();
}

std::string file_extension(const std::string& format) {
  if (format == "json" || format == "sarif" || format == "html") return format;
  if (format == "junit") return "xml";
  if (format == "markdown") return "md";
  return "txt";
}

// The scan document (json) or the summary table on standard output or -o;
// with --report-dir, one report per repository in --format, and scan.json.
// Returns false when a file of the report directory could not be written
// (each is named on stderr; the others and the summary are still written).
bool emit_scan(const kcheck::ScanReport& scan, const ReportArguments& arguments, const std::string& report_dir) {
  const kcheck::OutputFormat format = output_format(arguments);
  bool all_written = true;
  if (!report_dir.empty()) {
    const kcheck::RenderOptions options = render_options(arguments, format, false);
    auto render = [&](const kcheck::RepositoryReport& repository) {
      return kcheck::render_report(repository.report, format, options);
    };
    for (const kcheck::ReportWriteFailure& failure :
         kcheck::write_report_directory(scan, report_dir, render, file_extension(arguments.format))) {
      std::cerr << "kcheck scan: " << failure.file.string() << ": " << failure.reason << "\n";
      all_written = false;
    }
  }
  if (format == kcheck::OutputFormat::json) {
    write_output(kcheck::scan_report_to_json(scan).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                 arguments.output);
    return all_written;
  }
  if (format != kcheck::OutputFormat::text && format != kcheck::OutputFormat::markdown && report_dir.empty())
    throw std::invalid_argument("--format " + arguments.format +
                                " makes one file per repository: add --report-dir DIR");
  write_output(kcheck::render_scan_summary(scan, format == kcheck::OutputFormat::markdown), arguments.output);
  return all_written;
}

// `kcheck scan ROOT...`: audits every repository under the roots.
int run_scan_command(const ScanArguments& scan_arguments, const ReportArguments& arguments) {
  kcheck::RuleRegistry rules = kcheck::make_rule_registry();
  kcheck::ScanOptions options;
  options.audit = audit_options(arguments, rules);
  output_format(arguments);
  if (!scan_arguments.shard.empty()) options.shard = kcheck::parse_shard(scan_arguments.shard);
  if (!scan_arguments.no_cache)
    options.cache_directory = scan_arguments.cache_dir.empty() ? default_cache_directory() : scan_arguments.cache_dir;
  options.repository_timeout = std::nullopt;
  if (scan_arguments.repo_timeout_seconds)
    options.repository_timeout = std::chrono::seconds(scan_arguments.repo_timeout_seconds);
  kcheck::Policy policy = command_line_policy(arguments);
  // Hub ids among the roots: their cached snapshots, as ORG/NAME@COMMIT under
  // a root of this run's own, removed when it ends. A snapshot without build/
  // holds nothing a scan audits: refused, never left out in silence.
  std::vector<fs::path> roots;
  RemovedAtEnd hub_root;
  for (const std::string& root : scan_arguments.roots) {
    const std::optional<kcheck::HubReference> hub = hub_reference(root);
    if (!hub) {
      roots.emplace_back(root);
      continue;
    }
    if (hub_root.path.empty()) {
      hub_root.path = private_hub_directory();
      roots.push_back(hub_root.path);
    }
    const kcheck::HubSnapshot snapshot = hub_snapshot(*hub);
    const fs::path copy = kcheck::materialise_snapshot(snapshot, hub_root.path / (hub->repo_id + "@" + snapshot.commit),
                                                       options.audit.limits);
    std::error_code error;
    if (!fs::is_directory(copy / "build", error))
      throw std::invalid_argument(hub->repo_id + "@" + snapshot.commit +
                                  " in the cache holds no build/: nothing to scan");
  }
  kcheck::ScanStats stats;
  kcheck::ScanReport scan = kcheck::run_scan(kcheck::discover_repositories(roots), policy, options, rules, &stats);
  const bool reports_written = emit_scan(scan, arguments, scan_arguments.report_dir);
  if (scan_arguments.stats) {
    std::cerr << "kcheck scan: " << stats.repositories << " repositories; facts: " << stats.cache.facts_analysed
              << " files analysed, " << stats.cache.facts_reused << " from the cache; " << stats.cache.files_hashed
              << " files hashed, " << stats.cache.hashes_reused << " hashes from the cache; "
              << stats.cache.entries_written << " cache entries written";
    if (stats.cache.write_failures) std::cerr << "; " << stats.cache.write_failures << " cache writes failed";
    if (stats.cache.entries_rejected) std::cerr << "; " << stats.cache.entries_rejected << " cache entries rejected";
    std::cerr << "\n";
  }
  return reports_written ? scan.gate_status() : 2;
}

// `kcheck merge SHARD.json...`: one scan document from the shards' documents.
int run_merge_command(const std::vector<std::string>& files, const ReportArguments& arguments) {
  output_format(arguments);
  std::vector<kcheck::ScanReport> parts;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file);
    nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
    if (json.is_discarded()) throw std::runtime_error(file + ": not JSON");
    try {
      parts.push_back(kcheck::scan_report_from_json(json));
    } catch (const std::exception& error) {
      throw std::runtime_error(file + ": " + error.what());
    }
  }
  kcheck::ScanReport merged = kcheck::merge_scan_reports(parts);
  emit_scan(merged, arguments, "");
  return merged.gate_status();
}

// Renders a saved JSON report again; exits as the saved report's gate.
int run_report_command(const std::string& file, const ReportArguments& arguments) {
  output_format(arguments);  // reject a bad --format before reading
  kcheck::Report report = kcheck::load_saved_report(file);
  emit(report, arguments);
  return report.gate_status();
}

int run_explain_command(const std::string& code) {
  kcheck::RuleRegistry rules = kcheck::make_rule_registry();
  const kcheck::Rule* rule = rules.find(code);
  if (!rule) throw std::invalid_argument("unknown rule code '" + code + "' (see `kcheck rules`)");
  std::cout << kcheck::render_explanation(rule->info());
  return 0;
}

// `kcheck rules`: a line per rule, or with --format markdown the whole
// catalogue as docs/rules.md holds it.
int run_rules_command(const ReportArguments& arguments) {
  kcheck::RuleRegistry rules = kcheck::make_rule_registry();
  const kcheck::OutputFormat format = output_format(arguments);
  if (format == kcheck::OutputFormat::markdown) {
    std::cout << kcheck::rule_catalogue_markdown(kcheck::rule_catalogue(rules));
    return 0;
  }
  if (format == kcheck::OutputFormat::json) {
    std::cout << kcheck::rule_catalogue_json(kcheck::rule_catalogue(rules));
    return 0;
  }
  if (format != kcheck::OutputFormat::text)
    throw std::invalid_argument("kcheck rules lists the rules as text, json or markdown, not --format " +
                                arguments.format);
  for (const kcheck::Rule* rule : rules.rules()) {
    const kcheck::RuleInfo& info = rule->info();
    std::string severity(kcheck::to_string(info.default_severity));
    std::cout << info.code << "  " << severity << std::string(8 - severity.size(), ' ') << info.title << "\n";
  }
  return 0;
}

// Every subcommand falls through to the top-level app for the options it does
// not define itself, so the one set of report options (--security, --format,
// --strict, ...) is parsed once and means the same before or after the
// subcommand's name.
CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& description) {
  CLI::App* command = app.add_subcommand(name, description);
  command->fallthrough();
  return command;
}

// A positional argument that a subcommand did not take falls through to the
// top-level PATH; with a subcommand there is no place for it.
void refuse_stray_path(const CLI::App& app, const CLI::Option& path) {
  const std::vector<CLI::App*> commands = app.get_subcommands();
  if (commands.empty() || path.count() == 0) return;
  throw CLI::ExtrasError(commands.front()->get_name(), path.results());
}

// `kcheck chek x`: a PATH that does not exist but is spelled like a command
// is a mistyped command, not a missing kernel: what to say instead, or "".
std::string mistyped_command(const CLI::App& app, const std::string& path) {
  std::error_code error;
  if (path.empty() || path.find('/') != std::string::npos || fs::exists(path, error)) return "";
  std::vector<std::string> commands;
  for (const CLI::App* command : app.get_subcommands({})) commands.push_back(command->get_name());
  const std::string nearest = kcheck::nearest_spelling(path, commands);
  return nearest.empty() ? "" : "unknown command '" + path + "'; did you mean '" + nearest + "'?";
}

// `kcheck --stirct`: each argument spelled as an option that no command
// takes, with the nearest one that exists (as cargo and ruff say it), or "".
std::string unknown_options(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> known;
  auto collect = [&known](const CLI::App& command) {
    for (const CLI::Option* option : command.get_options()) {
      for (const std::string& name : option->get_lnames()) known.push_back("--" + name);
      for (const std::string& name : option->get_snames()) known.push_back("-" + name);
    }
  };
  collect(app);
  for (const CLI::App* command : app.get_subcommands({})) collect(*command);
  std::string message;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "--") break;
    if (!argument.starts_with("-") || argument == "-") continue;
    if (argument.find_first_not_of("-0123456789.eE+") == std::string::npos) continue;  // a negative number: a value
    argument = argument.substr(0, argument.find('='));
    if (std::find(known.begin(), known.end(), argument) != known.end()) continue;
    if (!argument.starts_with("--") && argument.size() > 2) continue;  // -abc: short flags together
    const std::string nearest = kcheck::nearest_spelling(argument, known);
    message += std::string(message.empty() ? "" : "; ") + "unknown option '" + argument + "'" +
               (nearest.empty() ? " (`kcheck --help` lists them)" : "; did you mean '" + nearest + "'?");
  }
  return message;
}

// `kcheck check --help`: the options every command takes live on the
// top-level app (each command falls through to it), so a command's help
// lists them after its own.
std::string shared_options_help(const CLI::App& app) {
  const std::vector<const CLI::Option*> shared = app.get_options([](const CLI::Option* option) {
    return option->nonpositional() && option->get_name() != "--help" && option->get_name() != "--version";
  });
  const CLI::Formatter formatter;
  return formatter.make_group("Options every command takes", false, shared);
}

}  // namespace

int main(int argc, char** argv) {
  kcheck::initialise_hashing();
  CLI::App app{"kcheck — compliance checker for Hugging Face Hub compute kernels"};
  app.set_version_flag("--version", std::string("kcheck ") + KCHECK_VERSION);
  app.require_subcommand(0, 1);

  std::string audit_path = ".";
  ReportArguments report;
  CLI::Option* path_option =
      app.add_option("path", audit_path,
                     "kernel repository (audits PATH/build), build directory, one variant, or one native module")
          ->capture_default_str();
  add_report_options(app, report);
  app.add_flag("--no-repo-config", report.no_repo_config,
               "report the repository's kcheck.toml/pyproject.toml suppressions but do not apply them "
               "(always so under --security)");
  app.add_flag("--local-build", report.local_build,
               "judge a local build: required variants of other Torch/CUDA releases are a note (KL006), "
               "not an error; never under --security");
  app.add_option("--library-path", report.library_paths,
                 "a directory of the libraries the modules load (a Torch's lib/, the CUDA toolkit's lib64); "
                 "repeatable: KE015 then resolves every undefined symbol in the module's DT_NEEDED closure found "
                 "there and in the system's directories")
      ->type_name("DIR")
      ->allow_extra_args(false);  // one directory per --library-path, never the PATH after it

  std::string check_path = ".";
  CLI::App* check = add_command(app, "check", "audit a kernel (the same as `kcheck PATH`)");
  check
      ->add_option("path", check_path,
                   "kernel repository (audits PATH/build), build directory, one variant, or one native module; a "
                   "source repository without build/ gets the checks that need no build")
      ->capture_default_str();
  bool sources_only = false;
  check->add_flag("--sources", sources_only,
                  "check the kernel's sources (build.toml, the Python package, the C++ op registrations) even "
                  "where build/ exists: what the pre-commit hook runs");

  std::string explain_code;
  CLI::App* explain = add_command(app, "explain", "print a rule's explanation, with the fix");
  explain->add_option("code", explain_code, "rule code, e.g. KE001")->required();
  CLI::App* rules = add_command(app, "rules", "list every rule code with its severity and title");

  std::string config_dir = ".";
  CLI::App* config = add_command(app, "config", "check a kernel source tree's build.toml (KC rules)");
  config->add_option("kernel_dir", config_dir, "kernel source directory holding build.toml")->capture_default_str();

  std::string saved_report;
  CLI::App* report_command = add_command(app, "report", "render a saved JSON report (--format json) again");
  report_command->add_option("file", saved_report, "report written by kcheck --format json")->required();

  BuildArguments build;
  CLI::App* build_command = add_command(app, "build", "build conformant variants from build.toml and audit them");
  build_command->add_option("kernel_dir", build.kernel_dir, "kernel source directory holding build.toml")
      ->capture_default_str();
  build_command
      ->add_option("--backends", build.backends,
                   "backends to build (cann,cpu,cuda,metal,neuron,rocm,tpu,xpu: compiled cpu, cuda and rocm "
                   "here, Python-only variants of any); default: every backend of build.toml buildable here")
      ->allow_extra_args(false);
  build_command->add_option("--cuda-capabilities", build.cuda_capabilities, "override CUDA capabilities (8.0,9.0a,...)")
      ->allow_extra_args(false);
  build_command->add_option("--rocm-archs", build.rocm_archs, "override ROCm architectures (gfx90a,gfx1030,...)")
      ->allow_extra_args(false);
  build_command->add_option("--torch", build.torch,
                            "Torch to build against: a venv, site-packages or torch package dir (default: the active "
                            "virtual environment's, else that of python3 on PATH)");
  build_command->add_option("--cuda", build.cuda, "CUDA toolkit root (default: $CUDA_HOME, /usr/local/cuda)");
  build_command->add_option("--rocm", build.rocm, "ROCm root or hipcc (default: $ROCM_PATH, /opt/rocm, PATH)");
  build_command->add_option("--unique-id", build.unique_id, "unique part of the id (default: git tree hash)");
  build_command->add_option("--output-dir", build.output_dir, "where variants go (default: KERNEL_DIR/build)");
  build_command->add_option("--scratch-dir", build.scratch_dir, "CMake projects (default: KERNEL_DIR/.kcheck-scratch)");
  build_command->add_option("--deps-dir", build.deps_dir,
                            "C++ dependencies' headers, e.g. DIR/cutlass-3.8.0/include; missing ones are fetched from "
                            "PyPI (default: ~/.cache/kcheck/deps)");
  build_command->add_option("--build-timeout", build.build_timeout_seconds,
                            "seconds one variant may compile before the build fails (default: 7200)");
  build_command->add_flag("--rocm-audit-fixtures", build.rocm_audit_fixtures,
                          "build ROCm variants although the Torch found is no ROCm build: their device code is real, "
                          "their Torch glue is not, so no ROCm Torch loads them (audit fixtures only)");

  DynamicArguments run_arguments;
  CLI::App* run_command =
      add_command(app, "run", "load each variant in a worker process and check its ops (KD, KO006 rules)");
  add_dynamic_options(*run_command, run_arguments, false);

  DynamicArguments bench_arguments;
  CLI::App* bench_command =
      add_command(app, "bench", "kcheck run, then time each op against its reference and the device (KB rules)");
  add_dynamic_options(*bench_command, bench_arguments, true);

  ScanArguments scan_arguments;
  CLI::App* scan_command =
      add_command(app, "scan", "audit every kernel repository under the roots, with a facts cache (docs/scan.md)");
  scan_command
      ->add_option("roots", scan_arguments.roots,
                   "repositories, or directories holding them (NAME@REVISION), or Hub ids ORG/NAME[@REVISION] "
                   "in the local Hugging Face cache")
      ->required();
  scan_command->add_option("--cache", scan_arguments.cache_dir, "facts cache directory (default: ~/.cache/kcheck)");
  scan_command->add_flag("--no-cache", scan_arguments.no_cache, "keep no facts on disk");
  scan_command->add_option("--shard", scan_arguments.shard, "audit only part INDEX of COUNT (0-based), e.g. 2/8");
  scan_command->add_option("--report-dir", scan_arguments.report_dir,
                           "write one report per repository in --format, and scan.json, to DIR");
  scan_command->add_flag("--stats", scan_arguments.stats, "print what the cache did on standard error");
  scan_command->add_option(
      "--repo-timeout", scan_arguments.repo_timeout_seconds,
      "seconds one repository's audit may take before it is reported as an error (default 300; 0: none)");

  std::vector<std::string> merge_files;
  CLI::App* merge_command = add_command(app, "merge", "combine the JSON documents of `kcheck scan --shard` runs");
  merge_command->add_option("files", merge_files, "scan documents (kcheck scan --format json)")->required();

  try {
    app.parse(argc, argv);
    refuse_stray_path(app, *path_option);
  } catch (const CLI::CallForHelp& help) {
    const int status = app.exit(help);
    if (!app.get_subcommands().empty()) std::cout << shared_options_help(app) << "\n";
    return status;
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::Success& success) {
    return app.exit(success);
  } catch (const CLI::ParseError& error) {
    std::string message = path_option->count() ? mistyped_command(app, path_option->results().front()) : "";
    if (message.empty() && dynamic_cast<const CLI::ExtrasError*>(&error)) message = unknown_options(app, argc, argv);
    std::cerr << "kcheck: " << (message.empty() ? error.what() : message) << "\n";
    return kExitUsage;
  }
  // The merged document is what array jobs collect (docs/scan.md): json unless --format says otherwise.
  if (merge_command->parsed() && app.get_option("--format")->count() == 0) report.format = "json";

  try {
    if (explain->parsed()) return run_explain_command(explain_code);
    if (rules->parsed()) return run_rules_command(report);
    if (report_command->parsed()) return run_report_command(saved_report, report);
    if (config->parsed()) return run_config_command(config_dir, report);
    if (build_command->parsed()) return run_build_command(build, report);
    if (run_command->parsed()) return run_dynamic_command(run_arguments, false, report);
    if (bench_command->parsed()) return run_dynamic_command(bench_arguments, true, report);
    if (scan_command->parsed()) return run_scan_command(scan_arguments, report);
    if (merge_command->parsed()) return run_merge_command(merge_files, report);
    if (check->parsed()) return run_audit_command(check_path, report, sources_only);
    if (const std::string mistyped = mistyped_command(app, audit_path); !mistyped.empty())
      throw std::invalid_argument(mistyped);
    return run_audit_command(audit_path, report);
  } catch (const std::exception& error) {
    std::cerr << "kcheck: " << error.what() << "\n";
    return kExitUsage;
  }
}
