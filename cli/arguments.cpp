#include "cli/arguments.h"

#include <sstream>

#include "checker/report/render.h"
#include "cli/commands.h"

namespace kcheck::cli {

namespace {

std::string format_list() {
  std::string formats;
  for (const std::string& name : output_format_names()) formats += (formats.empty() ? "" : ", ") + name;
  return formats;
}

}  // namespace

void add_report_options(CLI::App& app, ReportArguments& arguments) {
  app.add_option(
      "--policy", arguments.policy,
      "policy name (hub, hub-legacy) or policy file (default: the repository's kcheck.toml policy, else hub)");
  app.add_option("--format", arguments.format, "output format: " + format_list())
      ->capture_default_str()
      ->each([&arguments](const std::string&) { arguments.format_given = true; });
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
  app.add_flag("--no-repo-config", arguments.no_repo_config,
               "report the repository's kcheck.toml/pyproject.toml suppressions but do not apply them "
               "(always so under --security)");
  app.add_flag("--local-build", arguments.local_build,
               "judge a local build: required variants of other Torch/CUDA releases are a note (KL006), "
               "not an error; never under --security");
  app.add_option("--library-path", arguments.library_paths,
                 "a directory of the libraries the modules load (a Torch's lib/, the CUDA toolkit's lib64); "
                 "repeatable: KE015 then resolves every undefined symbol in the module's DT_NEEDED closure found "
                 "there and in the system's directories")
      ->type_name("DIR")
      ->allow_extra_args(false);  // one directory per --library-path, never the PATH after it
}

CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& description) {
  CLI::App* command = app.add_subcommand(name, description);
  command->fallthrough();
  return command;
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

}  // namespace kcheck::cli
