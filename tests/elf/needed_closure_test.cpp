// KE015's resolution against libraries at hand (checker/elf/needed_closure.h):
// the resolver on the system's own libraries (libc, libm) standing in for a
// Torch, then the rule through the command line on generated fixtures.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "checker/elf/needed_closure.h"
#include "tests/support/kcheck_command.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

// The system's libm: any real ELF library serves as a stand-in.
fs::path system_library(const std::string& name) {
  for (const fs::path& directory : system_library_directories())
    if (fs::exists(directory / name)) return directory / name;
  return {};
}

// A directory holding libtorch_global_deps.so (a link to the system's libm),
// as a Torch's lib/ holds it.
fs::path torch_like_directory(const std::string& area) {
  fs::path dir = kcheck_test::scratch_dir(area) / "torch-lib";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::create_symlink(system_library("libm.so.6"), dir / kTorchGlobalDeps);
  return dir;
}

std::vector<fs::path> with_system(fs::path first) {
  std::vector<fs::path> directories{std::move(first)};
  for (fs::path& directory : system_library_directories()) directories.push_back(std::move(directory));
  return directories;
}

ElfImportedSymbol imported(std::string name, std::string version = "", bool weak = false) {
  ElfImportedSymbol symbol;
  symbol.name = std::move(name);
  symbol.version = std::move(version);
  symbol.weak = weak;
  return symbol;
}

bool contains(const Strings& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

class NeededClosure : public ::testing::Test {
 protected:
  void SetUp() override {
    if (system_library("libm.so.6").empty() || system_library("libc.so.6").empty())
      GTEST_FAIL() << "this machine has no libc.so.6/libm.so.6 in the system's library directories";
  }
};

TEST_F(NeededClosure, ResolvesInTheClosureAndNamesWhatNothingDefines) {
  LibraryIndex libraries(with_system(torch_like_directory("needed-closure")));
  ElfFacts module;
  module.needed = {"libc.so.6"};
  module.imports = {imported("printf"),                   // libc defines it
                    imported("cos"),                      // libm, the global scope's stand-in
                    imported("kcheck_no_such_function"),  // nothing does
                    imported("PyLong_FromLong"),          // the interpreter's
                    imported("kcheck_weak", "", true),    // weak: not judged
                    imported("kcheck_versioned", "GLIBC_2.2.5")};
  const NeededClosureFacts closure = resolve_needed_closure("_m.abi3.so", module, "/nonexistent", libraries);
  EXPECT_TRUE(closure.complete()) << testing::PrintToString(closure.missing);
  EXPECT_EQ(closure.unresolved, Strings{"kcheck_no_such_function"});
  ASSERT_FALSE(closure.searched.empty());
  EXPECT_EQ(closure.searched.front(), kTorchGlobalDeps) << "the global scope comes first";
  EXPECT_TRUE(contains(closure.searched, "libc.so.6")) << testing::PrintToString(closure.searched);
}

TEST_F(NeededClosure, ALibraryFoundNowhereLeavesTheClosureIncomplete) {
  LibraryIndex libraries(with_system(torch_like_directory("needed-closure-missing")));
  ElfFacts module;
  module.needed = {"libkcheck_absent.so.1"};
  module.imports = {imported("kcheck_from_the_absent_library")};
  const NeededClosureFacts closure = resolve_needed_closure("_m.abi3.so", module, "/nonexistent", libraries);
  EXPECT_FALSE(closure.complete());
  EXPECT_EQ(closure.missing, Strings{"libkcheck_absent.so.1"});
}

TEST_F(NeededClosure, WithoutATorchTheGlobalScopeIsUnknown) {
  LibraryIndex libraries(system_library_directories());
  ElfFacts module;
  module.needed = {"libc.so.6"};
  const NeededClosureFacts closure = resolve_needed_closure("_m.abi3.so", module, "/nonexistent", libraries);
  EXPECT_EQ(closure.missing, Strings{kTorchGlobalDeps});
}

TEST_F(NeededClosure, ALibraryBesideTheModuleIsFoundThroughItsOriginRunpathButNoLinkOrWayOut) {
  const fs::path variant = kcheck_test::scratch_dir("needed-closure-origin") / "variant";
  fs::remove_all(variant);
  fs::create_directories(variant / "libs");
  fs::copy_file(system_library("libm.so.6"), variant / "libs/libkcheck_helper.so");
  // A link in the repository is never followed, nor a runpath out of the variant.
  fs::create_symlink(system_library("libm.so.6"), variant / "libs/libkcheck_linked.so");
  fs::copy_file(system_library("libm.so.6"), variant.parent_path() / "libkcheck_outside.so",
                fs::copy_options::overwrite_existing);
  LibraryIndex libraries(with_system(torch_like_directory("needed-closure-origin")));
  ElfFacts module;
  module.needed = {"libkcheck_helper.so", "libkcheck_linked.so", "libkcheck_outside.so"};
  module.runpath = {"$ORIGIN/libs", "$ORIGIN/.."};
  module.imports = {imported("sin")};
  const NeededClosureFacts closure = resolve_needed_closure("_m.abi3.so", module, variant, libraries);
  EXPECT_EQ(closure.missing, (Strings{"libkcheck_linked.so", "libkcheck_outside.so"}));
  EXPECT_TRUE(contains(closure.searched, "libkcheck_helper.so"));
  EXPECT_TRUE(closure.unresolved.empty()) << testing::PrintToString(closure.unresolved);
}

// Through the command line: a symbol of no known family is judged only with
// the libraries at hand; the weak near miss stays silent either way.
TEST_F(NeededClosure, KE015NamesAnUnknownSymbolOnlyWithLibrariesAtHand) {
  const fs::path fixtures = KCHECK_TREE_FIXTURES_DIR;
  const std::string variant = "build/torch212-cxx11-cpu-x86_64-linux";
  const fs::path firing = fixtures / "ke015_unknown_symbol_needs_libraries" / variant;
  const fs::path near_miss = fixtures / "ke015_symbol_no_needed_library_provides_near_miss" / variant;
  ASSERT_TRUE(fs::exists(firing)) << firing;
  const fs::path dir = kcheck_test::scratch_dir("needed-closure-cli");
  const std::string libraries =
      "--library-path " + kcheck_test::shell_quoted(torch_like_directory("needed-closure-cli"));
  auto findings = [&](const fs::path& tree, const std::string& extra) {
    const kcheck_test::RunResult run = kcheck_test::run_kcheck_in(
        dir, "check --select KE015 --format json " + extra + " " + kcheck_test::shell_quoted(tree));
    const nlohmann::json report = nlohmann::json::parse(run.out, nullptr, false);
    EXPECT_TRUE(report.is_object()) << run.out << run.err;
    return report.is_object() ? report["findings"] : nlohmann::json::array();
  };
  EXPECT_TRUE(findings(firing, "").empty()) << "by family alone the symbol is not judged";
  const nlohmann::json found = findings(firing, libraries);
  ASSERT_EQ(found.size(), 1u) << found.dump(1);
  EXPECT_EQ(found[0]["code"], "KE015");
  const std::string message = found[0]["message"];
  EXPECT_NE(message.find("imports kcheck_fixture_helper_the_link_forgot, which no library of its DT_NEEDED closure"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("searched libtorch_global_deps.so"), std::string::npos) << message;
  EXPECT_TRUE(findings(near_miss, libraries).empty());
}

}  // namespace
}  // namespace kcheck
