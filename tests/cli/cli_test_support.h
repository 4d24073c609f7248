// The CLI tests' way to run kcheck: tests/support/kcheck_command.h with the
// scratch folders under test-scratch/cli/.
#pragma once
#include <filesystem>
#include <string>

#include "tests/support/kcheck_command.h"

namespace cli_test {

using kcheck_test::RunResult;
using kcheck_test::shell_quoted;

inline std::string read_file(const std::filesystem::path& path) { return kcheck_test::read_text(path); }

inline std::filesystem::path scratch_dir() { return kcheck_test::scratch_dir("cli"); }

inline RunResult run_command(const std::string& command) { return kcheck_test::run_command_in(scratch_dir(), command); }

inline RunResult kcheck(const std::string& arguments) { return kcheck_test::run_kcheck_in(scratch_dir(), arguments); }

inline std::string fixture(const std::string& name) { return kcheck_test::tree_fixture(name); }

}  // namespace cli_test
