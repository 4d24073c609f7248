#pragma once
// kcheck's subcommands, one file each (cli/<name>_command.cpp): each holds
// its own options, adds them to its CLI11 subcommand (`add_to`), and does its
// work from them and the shared options (`run`, returning the exit status).
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "checker/scan/scan.h"
#include "cli/arguments.h"

namespace kcheck::cli {

// Every subcommand falls through to the top-level app for the options it does
// not define itself, so the one set of report options (--security, --format,
// --strict, ...) is parsed once and means the same before or after the
// subcommand's name.
CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& description);

// `kcheck check PATH` (and `kcheck PATH`).
struct CheckCommand {
  std::string path = ".";
  bool sources_only = false;  // --sources: the checks of a source repository even where build/ exists
  CLI::App* app = nullptr;
  void add_to(CLI::App& parent);
  int run(const ReportArguments& arguments) const;
};

// `kcheck config KERNEL_DIR`: build.toml's KC rules.
struct ConfigCommand {
  std::string kernel_dir = ".";
  CLI::App* app = nullptr;
  void add_to(CLI::App& parent);
  int run(const ReportArguments& arguments) const;
};

// `kcheck build KERNEL_DIR`: conformant variants from build.toml, audited.
struct BuildCommand {
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
  CLI::App* app = nullptr;
  void add_to(CLI::App& parent);
  int run(const ReportArguments& arguments) const;
};

// `kcheck run PATH` and `kcheck bench PATH` (`bench`: run, then time).
struct DynamicCommand {
  explicit DynamicCommand(bool bench) : bench(bench) {}
  bool bench;
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
  CLI::App* app = nullptr;
  void add_to(CLI::App& parent);
  int run(const ReportArguments& arguments) const;
};

// `kcheck scan ROOT...`: every repository under the roots, with a facts cache.
struct ScanCommand {
  std::vector<std::string> roots;
  std::string cache_dir;
  bool no_cache = false;
  std::string shard;
  std::string report_dir;
  bool stats = false;
  unsigned repo_timeout_seconds = ScanOptions::kDefaultRepositoryTimeout.count();  // 0: none
  CLI::App* app = nullptr;
  void add_to(CLI::App& parent);
  int run(const ReportArguments& arguments) const;
};

// `kcheck merge SHARD.json...`: one scan document from the shards'.
struct MergeCommand {
  std::vector<std::string> files;
  CLI::App* app = nullptr;
  void add_to(CLI::App& parent);
  int run(const ReportArguments& arguments) const;
};

// `kcheck report FILE`: a saved JSON report rendered again.
struct ReportCommand {
  std::string file;
  CLI::App* app = nullptr;
  void add_to(CLI::App& parent);
  int run(const ReportArguments& arguments) const;
};

// `kcheck rules`: the catalogue; `kcheck explain CODE`: one rule.
struct RulesCommand {
  CLI::App* app = nullptr;
  void add_to(CLI::App& parent);
  int run(const ReportArguments& arguments) const;
};
struct ExplainCommand {
  std::string code;
  CLI::App* app = nullptr;
  void add_to(CLI::App& parent);
  int run() const;
};

}  // namespace kcheck::cli
