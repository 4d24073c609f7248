// Differential tests: the facts kcheck reads equal what LIEF reports (needed
// libraries, imports with versions, exports) and what cuobjdump lists for
// fat binaries, on every fixture and on large real libraries of the machine.
#include <gtest/gtest.h>

#include <LIEF/LIEF.hpp>

#include <cstdio>
#include <memory>
#include <regex>
#include <set>

#include "tests/elf/elf_test_support.h"

namespace kcheck::testing {
namespace {

namespace fs = std::filesystem;
using Names = std::multiset<std::string>;

struct ComparableFacts {
  std::vector<std::string> needed;
  Names imports;  // "name@version" ("name" when unversioned)
  Names exports;
};

ComparableFacts from_kcheck(const ElfFacts& facts) {
  ComparableFacts result{facts.needed, {}, {}};
  for (const ElfImportedSymbol& symbol : facts.imports)
    result.imports.insert(symbol.version.empty() ? symbol.name : symbol.name + "@" + symbol.version);
  for (const ElfExportedSymbol& symbol : facts.exports) result.exports.insert(symbol.name);
  return result;
}

ComparableFacts from_lief(const fs::path& file) {
  ComparableFacts result;
  const std::unique_ptr<LIEF::ELF::Binary> binary = LIEF::ELF::Parser::parse(file.string());
  for (const LIEF::ELF::DynamicEntry& entry : binary->dynamic_entries()) {
    if (entry.tag() == LIEF::ELF::DYNAMIC_TAGS::DT_NEEDED) {
      result.needed.push_back(dynamic_cast<const LIEF::ELF::DynamicEntryLibrary&>(entry).name());
    }
  }
  // The same selection kcheck makes, on LIEF's parse of .dynsym.
  for (const LIEF::ELF::Symbol& symbol : binary->dynamic_symbols()) {
    if (symbol.name().empty() || symbol.binding() == LIEF::ELF::SYMBOL_BINDINGS::STB_LOCAL) continue;
    if (symbol.shndx() != 0) {
      result.exports.insert(symbol.name());
      continue;
    }
    std::string version;
    if (symbol.has_version() && symbol.symbol_version().has_auxiliary_version())
      version = symbol.symbol_version().symbol_version_auxiliary().name();
    result.imports.insert(version.empty() ? symbol.name() : symbol.name() + "@" + version);
  }
  return result;
}

std::vector<fs::path> differential_subjects() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(KCHECK_ELF_FIXTURES_DIR)) {
    if (!entry.path().filename().string().starts_with("_macho")) files.push_back(entry.path());
  }
  // Large real libraries: the CUDA toolkit's and, when the venv has Torch, Torch's.
  for (const char* library : {"/usr/local/cuda/lib64/libcudart.so.13", "/usr/local/cuda/lib64/libcublas.so.13",
                              "/usr/local/cuda/lib64/libcublasLt.so.13", "/usr/local/cuda/lib64/libcufft.so.12"}) {
    if (fs::exists(library)) files.emplace_back(library);
  }
  const fs::path torch_lib = fs::path(KCHECK_SOURCE_DIR) / ".venv/lib/python3.11/site-packages/torch/lib";
  if (fs::is_directory(torch_lib)) {
    for (const auto& entry : fs::directory_iterator(torch_lib)) {
      if (entry.path().extension() == ".so") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ElfDifferential, FactsEqualLief) {
  const auto subjects = differential_subjects();
  ASSERT_GE(subjects.size(), 15u);
  for (const fs::path& file : subjects) {
    SCOPED_TRACE(file.string());
    const ElfFacts facts = read_elf_facts(file);
    ASSERT_EQ(facts.error, "");
    const ComparableFacts ours = from_kcheck(facts);
    const ComparableFacts lief = from_lief(file);
    // Every subject links something or exports something: two empty readings
    // would compare equal and prove nothing.
    EXPECT_FALSE(lief.imports.empty() && lief.exports.empty()) << "LIEF read no dynamic symbols";
    EXPECT_EQ(ours.needed, lief.needed);
    EXPECT_EQ(ours.imports, lief.imports);
    EXPECT_EQ(ours.exports, lief.exports);
  }
}

// Archs cuobjdump lists ("sm_90a" from "x.2.sm_90a.cubin"); it prints family
// cubins (sm_100f) without their 'f', so kcheck's names are compared the same way.
std::set<std::string> cuobjdump_archs(const fs::path& file, const char* option, const std::string& prefix) {
  const std::string command = std::string(KCHECK_CUOBJDUMP) + " " + option + " '" + file.string() + "' 2>/dev/null";
  std::unique_ptr<FILE, decltype(&pclose)> pipe(popen(command.c_str(), "r"), &pclose);
  std::set<std::string> archs;
  static const std::regex arch(R"(\.sm_([0-9]+[a-z]?)\.(cubin|ptx))");
  char line[4096];
  while (pipe && std::fgets(line, sizeof line, pipe.get())) {
    std::cmatch match;
    if (std::regex_search(line, match, arch)) archs.insert(prefix + match[1].str());
  }
  return archs;
}

std::set<std::string> without_family_suffix(const std::vector<std::string>& archs) {
  std::set<std::string> names;
  for (std::string arch : archs) {
    if (arch.ends_with("f")) arch.pop_back();
    names.insert(arch);
  }
  return names;
}

TEST(ElfDifferential, FatBinaryArchsEqualCuobjdump) {
  KCHECK_REQUIRE_FIXTURE("_cuda_kernel.abi3.so");
  if (!fs::exists(KCHECK_CUOBJDUMP)) GTEST_SKIP() << "cuobjdump not installed in the venv (pip nvidia-cuda-cuobjdump)";
  std::vector<fs::path> files = {elf_fixture("_cuda_kernel.abi3.so")};
  for (const char* library : {"/usr/local/cuda/lib64/libcublasLt.so.13", "/usr/local/cuda/lib64/libcufft.so.12"}) {
    if (fs::exists(library)) files.emplace_back(library);
  }
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const ElfFacts facts = read_elf_facts(file);
    ASSERT_TRUE(facts.device_code.has_value());
    EXPECT_EQ(facts.device_code->error, "");
    const std::set<std::string> sass = cuobjdump_archs(file, "--list-elf", "sm_");
    const std::set<std::string> ptx = cuobjdump_archs(file, "--list-ptx", "compute_");
    // Every file here carries SASS, and the fixture PTX: an empty list from
    // cuobjdump means it did not run or its output changed shape.
    ASSERT_FALSE(sass.empty()) << "cuobjdump listed no SASS";
    if (file == elf_fixture("_cuda_kernel.abi3.so")) {
      ASSERT_FALSE(ptx.empty()) << "cuobjdump listed no PTX";
    }
    EXPECT_EQ(without_family_suffix(facts.device_code->cuda_sass_archs), sass);
    EXPECT_EQ(without_family_suffix(facts.device_code->cuda_ptx_archs), ptx);
  }
}

}  // namespace
}  // namespace kcheck::testing
