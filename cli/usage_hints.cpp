#include "cli/usage_hints.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "checker/support/spelling.h"

namespace kcheck::cli {

namespace fs = std::filesystem;

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
  const std::string nearest = nearest_spelling(path, commands);
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
    const std::string nearest = nearest_spelling(argument, known);
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

}  // namespace kcheck::cli
