// Where `kcheck build` finds Torch without --torch (issue #29): the active
// virtual environment, the checkout's .venv, then python3 on PATH (asked
// where its torch package is) — never a path fixed when kcheck was built.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "checker/builder/toolchain.h"
#include "tests/support/kcheck_command.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the test's own scratch.
fs::path scratch(const std::string& name) {
  fs::path path = kcheck_test::scratch_dir("builder") / name;
  fs::remove_all(path);
  fs::create_directories(path);
  return path;
}

// A stand-in interpreter: prints `output` and exits with `status`.
fs::path fake_python(const fs::path& directory, const std::string& output, int status = 0) {
  fs::path python = directory / "python3";
  std::ofstream(python) << "#!/bin/sh\nprintf '%s\\n' '" << output << "'\nexit " << status << "\n";
  ::chmod(python.c_str(), 0755);
  return python;
}

TEST(TorchDiscovery, TheActiveVirtualEnvironmentComesFirst) {
  EXPECT_EQ(default_torch_environment("/opt/venv", "/usr/bin/kcheck", "/no/python"), fs::path("/opt/venv"));
}

TEST(TorchDiscovery, ThenTheCheckoutsVenvBesideTheBuildDirectory) {
  const fs::path checkout = scratch("checkout");
  fs::create_directories(checkout / ".venv");
  fs::create_directories(checkout / "_build");
  EXPECT_EQ(default_torch_environment(nullptr, checkout / "_build" / "kcheck", "/no/python"), checkout / ".venv");
  EXPECT_EQ(default_torch_environment("", checkout / "_build" / "kcheck", "/no/python"), checkout / ".venv");
}

TEST(TorchDiscovery, ThenTheTorchOfPythonOnPath) {
  const fs::path root = scratch("path");
  fs::create_directories(root / "site-packages" / "torch");
  const fs::path installed = root / "venv" / "bin" / "kcheck";  // an installed kcheck: no .venv beside it
  EXPECT_EQ(default_torch_environment(nullptr, installed,
                                      fake_python(root, (root / "site-packages" / "torch").string()).string()),
            root / "site-packages" / "torch");
  EXPECT_EQ(default_torch_environment(nullptr, installed, fake_python(root, "no module named torch", 1).string()),
            fs::path())
      << "a Python without torch gives nothing";
  EXPECT_EQ(default_torch_environment(nullptr, installed, fake_python(root, "/no/such/dir").string()), fs::path());
  EXPECT_EQ(default_torch_environment(nullptr, installed, (root / "missing").string()), fs::path());
}

}  // namespace
}  // namespace kcheck
