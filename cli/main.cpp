// The kcheck executable: parses the command line once and hands it to the
// subcommand that was named (cli/<name>_command.cpp); the library does the work.
#include <iostream>

#include <CLI/CLI.hpp>

#include "checker/metadata/digest.h"
#include "cli/arguments.h"
#include "cli/commands.h"
#include "cli/usage_hints.h"

int main(int argc, char** argv) {
  using namespace kcheck::cli;
  kcheck::initialise_hashing();
  CLI::App app{"kcheck — compliance checker for Hugging Face Hub compute kernels"};
  app.set_version_flag("--version", std::string("kcheck ") + KCHECK_VERSION);
  app.require_subcommand(0, 1);

  // `kcheck PATH`: the same as `kcheck check PATH`.
  CheckCommand audit;
  CLI::Option* path_option =
      app.add_option("path", audit.path,
                     "kernel repository (audits PATH/build), build directory, one variant, or one native module")
          ->capture_default_str();
  ReportArguments report;
  add_report_options(app, report);

  CheckCommand check;
  check.add_to(app);
  ExplainCommand explain;
  explain.add_to(app);
  RulesCommand rules;
  rules.add_to(app);
  ConfigCommand config;
  config.add_to(app);
  ReportCommand report_command;
  report_command.add_to(app);
  BuildCommand build;
  build.add_to(app);
  DynamicCommand run{false};
  run.add_to(app);
  DynamicCommand bench{true};
  bench.add_to(app);
  ScanCommand scan;
  scan.add_to(app);
  MergeCommand merge;
  merge.add_to(app);

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

  try {
    if (explain.app->parsed()) return explain.run();
    if (rules.app->parsed()) return rules.run(report);
    if (report_command.app->parsed()) return report_command.run(report);
    if (config.app->parsed()) return config.run(report);
    if (build.app->parsed()) return build.run(report);
    if (run.app->parsed()) return run.run(report);
    if (bench.app->parsed()) return bench.run(report);
    if (scan.app->parsed()) return scan.run(report);
    if (merge.app->parsed()) return merge.run(report);
    if (check.app->parsed()) return check.run(report);
    if (const std::string mistyped = mistyped_command(app, audit.path); !mistyped.empty())
      throw std::invalid_argument(mistyped);
    return audit.run(report);
  } catch (const std::exception& error) {
    std::cerr << "kcheck: " << error.what() << "\n";
    return kExitUsage;
  }
}
