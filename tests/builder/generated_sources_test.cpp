// The files `kcheck build` generates for a variant (generated_sources.h),
// checked by what they do rather than how they read: the registration macros
// expanded by the preprocessor, the export map applied by the linker, and the
// Python modules run by Python against a stand-in `torch`.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/builder/generated_sources.h"
#include "checker/kinds/elf_facts.h"
#include "tests/support/kcheck_command.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / ("kcheck-generated-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string read(const fs::path& path) { return kcheck_test::read_text(path); }

struct CommandEnd {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

CommandEnd run(const std::string& command, const fs::path& dir) {
  const fs::path output = dir / "command-output";
  const int status = std::system((command + " >'" + output.string() + "' 2>&1").c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read(output)};
}

bool have(const std::string& tool) { return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0; }

// --- registration.h ----------------------------------------------------------

// The binding source names its namespace TORCH_EXTENSION_NAME; the header's
// *_EXPAND macros must expand it to the variant id before TORCH_LIBRARY sees
// it, and REGISTER_EXTENSION must define PyInit_<id> for a module named <id>.
TEST(RegistrationHeader, ExpandsTheExtensionNameIntoEveryRegistration) {
  if (!have("c++")) GTEST_SKIP() << "no c++ on PATH";
  const fs::path dir = scratch("registration");
  write(dir / "generated" / "registration.h", registration_header());
  write(dir / "stub" / "Python.h", "// stand-in: only the macros are expanded\n");
  write(dir / "binding.cpp",
        "#include \"registration.h\"\n"
        "TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {}\n"
        "TORCH_LIBRARY_IMPL_EXPAND(TORCH_EXTENSION_NAME, CPU, ops) {}\n"
        "STABLE_TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {}\n"
        "STABLE_TORCH_LIBRARY_IMPL_EXPAND(TORCH_EXTENSION_NAME, CPU, ops) {}\n"
        "REGISTER_EXTENSION(TORCH_EXTENSION_NAME)\n");
  const CommandEnd expanded =
      run("c++ -E -P -I'" + (dir / "generated").string() + "' -I'" + (dir / "stub").string() +
              "' -DTORCH_EXTENSION_NAME=_toy_cpu_0f1e2d3 '" + (dir / "binding.cpp").string() + "'",
          dir);
  ASSERT_EQ(expanded.exit_code, 0) << expanded.output;
  const std::string& text = expanded.output;
  EXPECT_NE(text.find("TORCH_LIBRARY(_toy_cpu_0f1e2d3, ops)"), std::string::npos) << text;
  EXPECT_NE(text.find("TORCH_LIBRARY_IMPL(_toy_cpu_0f1e2d3, CPU, ops)"), std::string::npos) << text;
  EXPECT_NE(text.find("STABLE_TORCH_LIBRARY(_toy_cpu_0f1e2d3, ops)"), std::string::npos) << text;
  EXPECT_NE(text.find("STABLE_TORCH_LIBRARY_IMPL(_toy_cpu_0f1e2d3, CPU, ops)"), std::string::npos) << text;
  EXPECT_NE(text.find("PyInit__toy_cpu_0f1e2d3()"), std::string::npos) << text;
  EXPECT_NE(text.find("\"_toy_cpu_0f1e2d3\""), std::string::npos) << "the module's name is the id\n" << text;
  EXPECT_EQ(text.find("TORCH_EXTENSION_NAME"), std::string::npos) << "left unexpanded\n" << text;
}

// --- exports.map ---------------------------------------------------------------

TEST(ExportMap, TheLinkerExportsPyInitOfTheIdAlone) {
  if (!have("cc")) GTEST_SKIP() << "no cc on PATH";
  const fs::path dir = scratch("export-map");
  write(dir / "exports.map", export_map("_toy_cpu_0f1e2d3"));
  write(dir / "module.c",
        "int helper(void) { return 1; }\n"
        "int other_visible_function(void) { return helper() + 1; }\n"
        "int PyInit__toy_cpu_0f1e2d3(void) { return other_visible_function(); }\n");
  const fs::path module = dir / "_toy_cpu_0f1e2d3.abi3.so";
  const CommandEnd linked = run("cc -shared -fPIC -o '" + module.string() + "' '" + (dir / "module.c").string() +
                                    "' -Wl,--version-script='" + (dir / "exports.map").string() + "'",
                                dir);
  ASSERT_EQ(linked.exit_code, 0) << linked.output;
  const ElfFacts facts = read_elf_facts(module);
  ASSERT_EQ(facts.error, "");
  std::vector<std::string> exported;
  for (const ElfExportedSymbol& symbol : facts.exports) exported.push_back(symbol.name);
  EXPECT_EQ(exported, std::vector<std::string>{"PyInit__toy_cpu_0f1e2d3"});
}

TEST(ExportMap, EachIdGetsItsOwnInitFunction) {
  EXPECT_NE(export_map("_a_cpu_1111111"), export_map("_a_cpu_2222222"));
  EXPECT_NE(export_map("_a_cpu_1111111").find("PyInit__a_cpu_1111111;"), std::string::npos);
}

// --- the Python modules, run against a stand-in torch ----------------------------

// Python that installs a `torch` module whose version and backends are given
// by the environment, and whose torch.ops.<name> is the string "ops:<name>".
const char* kFakeTorch = R"(import os, sys, types
torch = types.ModuleType("torch")
torch.version = types.SimpleNamespace(cuda=os.environ.get("FAKE_CUDA") or None,
                                      hip=os.environ.get("FAKE_HIP") or None)
torch.backends = types.SimpleNamespace(mps=types.SimpleNamespace(
    is_available=lambda: os.environ.get("FAKE_MPS") == "1"))
class _Ops:
    def __getattr__(self, name):
        return "ops:" + name
torch.ops = _Ops()
sys.modules["torch"] = torch
)";

class GeneratedPython : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(KCHECK_SYSTEM_PYTHON)) GTEST_SKIP() << "no Python at " << KCHECK_SYSTEM_PYTHON;
    dir_ = scratch(::testing::UnitTest::GetInstance()->current_test_info()->name());
    write(dir_ / "fake_torch.py", kFakeTorch);
  }

  // Runs `script` (after the stand-in torch is installed) in the scratch directory.
  CommandEnd python(const std::string& script, const std::string& environment = "") {
    write(dir_ / "script.py", "import fake_torch\n" + script);
    return run("cd '" + dir_.string() + "' && " + environment + " '" + KCHECK_SYSTEM_PYTHON + "' script.py", dir_);
  }

  fs::path dir_;
};

TEST_F(GeneratedPython, OpsModuleBindsTheIdsNamespace) {
  write(dir_ / "variant" / "__init__.py", "");
  write(dir_ / "variant" / "_toy_cpu_0f1e2d3.py", "# stands in for the native module\n");
  write(dir_ / "variant" / "_ops.py", ops_module("_toy_cpu_0f1e2d3"));
  const CommandEnd end =
      python("from variant import _ops\nprint(_ops.ops)\nprint(_ops.add_op_namespace_prefix('scale'))\n");
  ASSERT_EQ(end.exit_code, 0) << end.output;
  EXPECT_EQ(end.output, "ops:_toy_cpu_0f1e2d3\n_toy_cpu_0f1e2d3::scale\n");
}

TEST_F(GeneratedPython, OpsModuleImportsTheNativeModuleOfItsId) {
  write(dir_ / "variant" / "__init__.py", "");
  write(dir_ / "variant" / "_ops.py", ops_module("_toy_cpu_0f1e2d3"));  // no module of that name
  const CommandEnd end = python("from variant import _ops\n");
  EXPECT_NE(end.exit_code, 0) << "importing _ops loads the native module, which registers the ops";
  EXPECT_NE(end.output.find("_toy_cpu_0f1e2d3"), std::string::npos) << end.output;
}

// The Python-only namespace: _<module>_<backend>_<unique>, the backend that
// of the running Torch (build-variants.md §3.3).
TEST_F(GeneratedPython, PythonOnlyOpsNamespaceFollowsTheRunningTorchsBackend) {
  write(dir_ / "_ops.py", python_only_ops_module("noarch_scale", "0f1e2d3"));
  const std::string script = "import _ops\nprint(_ops._OPS_NAME, _ops.ops, _ops.add_op_namespace_prefix('scale'))\n";
  const struct {
    std::string environment;
    std::string backend;
  } cases[] = {
      {"FAKE_CUDA=12.8", "cuda"},
      {"FAKE_HIP=6.3", "rocm"},
      {"FAKE_MPS=1", "metal"},
      {"", "cpu"},
  };
  for (const auto& c : cases) {
    const CommandEnd end = python(script, c.environment);
    ASSERT_EQ(end.exit_code, 0) << c.environment << ": " << end.output;
    const std::string name = "_noarch_scale_" + c.backend + "_0f1e2d3";
    EXPECT_EQ(end.output, name + " ops:" + name + " " + name + "::scale\n") << c.environment;
  }
}

TEST(PythonOnlyOpsModule, TheNamespaceDiffersPerModuleAndUniquePart) {
  const std::string base = python_only_ops_module("scale", "0f1e2d3");
  EXPECT_NE(base, python_only_ops_module("scale", "1234567"));
  EXPECT_NE(base, python_only_ops_module("shift", "0f1e2d3"));
}

TEST_F(GeneratedPython, CompatibilityPackageReexportsTheTopLevelPackage) {
  write(dir_ / "variant" / "__init__.py",
        "def scale(x):\n    return 2 * x\n\n\ndef shift(x):\n    return x + 1\n\n\n__all__ = ['scale', 'shift']\n");
  write(dir_ / "variant" / "toy" / "__init__.py", compatibility_package({"scale", "shift"}));
  const CommandEnd end = python("import variant.toy as toy\nprint(toy.scale(3), toy.shift(3), toy.__all__)\n");
  ASSERT_EQ(end.exit_code, 0) << end.output;
  EXPECT_EQ(end.output, "6 4 ['scale', 'shift']\n");
}

TEST_F(GeneratedPython, CompatibilityPackageWithoutALiteralAllStillReexports) {
  write(dir_ / "variant" / "__init__.py", "def scale(x):\n    return 2 * x\n");
  const std::string package = compatibility_package({});
  EXPECT_EQ(package.find("__all__"), std::string::npos) << "no __all__ is invented";
  write(dir_ / "variant" / "toy" / "__init__.py", package);
  const CommandEnd end = python("import variant.toy as toy\nprint(toy.scale(5), hasattr(toy, '__all__'))\n");
  ASSERT_EQ(end.exit_code, 0) << end.output;
  EXPECT_EQ(end.output, "10 False\n");
}

}  // namespace
}  // namespace kcheck
