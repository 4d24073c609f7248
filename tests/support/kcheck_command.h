// Running the built kcheck executable as a user would, for the tests that
// judge its output: one scratch folder per test (suite and name), stdout and
// stderr captured through files, the exit status decoded.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kcheck_test {

struct RunResult {
  int exit_code = -1;  // -1: killed by a signal
  std::string out;
  std::string err;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// <build>/test-scratch/<area>/<suite>/<test>: apart for every test, so tests
// running at once never share a file.
inline std::filesystem::path scratch_dir(const std::string& area) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::path dir =
      std::filesystem::path(KCHECK_BINARY_DIR) / "test-scratch" / area / test->test_suite_name() / test->name();
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string shell_quoted(const std::filesystem::path& path) { return "'" + path.string() + "'"; }

// Runs a shell command with no standard input, its output kept in `dir`.
inline RunResult run_command_in(const std::filesystem::path& dir, const std::string& command) {
  const std::string full =
      command + " >" + shell_quoted(dir / "out") + " 2>" + shell_quoted(dir / "err") + " </dev/null";
  const int status = std::system(full.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(dir / "out"), read_text(dir / "err")};
}

// kcheck with `arguments` (shell words, quoted by the caller), colour off.
inline RunResult run_kcheck_in(const std::filesystem::path& dir, const std::string& arguments) {
  return run_command_in(dir, "NO_COLOR= " + shell_quoted(KCHECK_EXECUTABLE) + " " + arguments);
}

// A tree fixture materialised by the build, quoted for the shell.
inline std::string tree_fixture(const std::string& name) {
  return shell_quoted(std::filesystem::path(KCHECK_TREE_FIXTURES_DIR) / name);
}

}  // namespace kcheck_test
