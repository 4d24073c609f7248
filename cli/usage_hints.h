#pragma once
// What kcheck says when the command line itself is wrong: the nearest
// command or option (as cargo and ruff say it), and a command's help with
// the options every command takes.
#include <string>

#include <CLI/CLI.hpp>

namespace kcheck::cli {

// A positional argument that a subcommand did not take falls through to the
// top-level PATH; with a subcommand there is no place for it (CLI::ExtrasError).
void refuse_stray_path(const CLI::App& app, const CLI::Option& path);

// `kcheck chek x`: a PATH that does not exist but is spelled like a command
// is a mistyped command, not a missing kernel: what to say instead, or "".
std::string mistyped_command(const CLI::App& app, const std::string& path);

// `kcheck --stirct`: each argument spelled as an option that no command
// takes, with the nearest one that exists, or "".
std::string unknown_options(const CLI::App& app, int argc, char** argv);

// `kcheck check --help`: the options every command takes live on the
// top-level app (each command falls through to it), so a command's help
// lists them after its own.
std::string shared_options_help(const CLI::App& app);

}  // namespace kcheck::cli
