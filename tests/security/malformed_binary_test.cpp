// Malformed native modules (issue #8): every ELF fixture truncated at many
// lengths and with bit flips in the ELF header, the section and program
// header tables, the dynamic section and the version sections; tables and
// counts beyond the file; version-need chains that revisit entries; string
// tables larger than the file. Each mutation is read in process (so ASan and
// UBSan see every access) and judged by the KE rules; a reader error must
// come back as KE007 naming the file and the reason. One CLI run checks the
// whole-tree behaviour: the bad module reported, the rest audited normally,
// exit status 1.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/rule.h"
#include "checker/facts/tree_facts.h"
#include "checker/kinds/elf_facts.h"
#include "checker/elf/rules/elf_rule_table.h"
#include "checker/kinds/variant_name.h"
#include "tests/security/security_test_support.h"

namespace kcheck::security_test {
namespace {

using Bytes = std::vector<unsigned char>;

Bytes read_bytes(const fs::path& file) {
  const std::string text = read_all(file);
  return Bytes(text.begin(), text.end());
}

template <typename T>
T field(const Bytes& bytes, std::size_t offset) {
  T value{};
  if (offset + sizeof(T) <= bytes.size()) std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}
template <typename T>
void set_field(Bytes& bytes, std::size_t offset, T value) {
  if (offset + sizeof(T) <= bytes.size()) std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

// The layout of a 64-bit little-endian fixture, read independently of kcheck.
struct Layout {
  std::uint64_t section_table = 0, segment_table = 0;
  std::uint16_t section_count = 0, segment_count = 0;
  struct Section {
    std::uint32_t type;
    std::uint64_t offset, size;
    std::size_t header;  // where its header is
  };
  std::vector<Section> sections;
  const Section* of_type(std::uint32_t type) const {
    for (const Section& section : sections)
      if (section.type == type) return &section;
    return nullptr;
  }
};

Layout layout_of(const Bytes& bytes) {
  Layout layout;
  layout.segment_table = field<std::uint64_t>(bytes, 32);
  layout.section_table = field<std::uint64_t>(bytes, 40);
  layout.segment_count = field<std::uint16_t>(bytes, 56);
  layout.section_count = field<std::uint16_t>(bytes, 60);
  for (std::size_t index = 0; index < layout.section_count; ++index) {
    const std::size_t header = layout.section_table + index * 64;
    layout.sections.push_back({field<std::uint32_t>(bytes, header + 4), field<std::uint64_t>(bytes, header + 24),
                               field<std::uint64_t>(bytes, header + 32), header});
  }
  return layout;
}

constexpr std::uint32_t kDynamic = 6, kDynamicSymbols = 11, kStrings = 3, kVersionNeeds = 0x6ffffffe,
                        kVersionDefinitions = 0x6ffffffd, kSymbolVersions = 0x6fffffff;

// Reads one image as an audit would and judges it with every KE rule.
class ModuleJudge {
 public:
  ModuleJudge() : policy_(load_policy("hub")) { add_rules(rules_, kElfRules); }

  struct Verdict {
    std::string error;
    Findings findings;
  };

  Verdict judge(const Bytes& bytes) {
    {
      std::ofstream out(file_, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    }
    TreeFacts tree;
    tree.scope = AuditScope::variant;
    VariantFacts& variant = tree.variants.emplace_back();
    variant.directory_name = "torch213-cxx11-cpu-x86_64-linux";
    variant.name = parse_variant_name(variant.directory_name);
    NativeModuleFacts& module = variant.native_modules.emplace_back();
    module.relative_path = "_mutant_cpu_0123456.abi3.so";
    module.elf = read_elf_facts(file_);
    Verdict verdict{module.elf->error, {}};
    const AuditOptions options;
    const RuleContext context{tree, policy_, options.rule_options()};
    for (const Rule* rule : rules_.rules()) {
      FindingSink sink(rule->info(), verdict.findings);
      rule->check(context, sink);
    }
    return verdict;
  }

 private:
  ScratchDir scratch_;
  fs::path file_ = scratch_.path() / "_mutant_cpu_0123456.abi3.so";
  Policy policy_;
  RuleRegistry rules_;
};

bool reports_ke007_with(const ModuleJudge::Verdict& verdict, const std::string& reason) {
  for (const Finding& finding : verdict.findings)
    if (finding.code == "KE007" && finding.file == "_mutant_cpu_0123456.abi3.so" &&
        finding.message.find(reason) != std::string::npos)
      return true;
  return false;
}

std::vector<fs::path> elf_fixtures() {
  std::vector<fs::path> fixtures;
  for (const char* name : {"_clean.abi3.so", "_glibc_229.abi3.so", "_glibcxx_325.abi3.so", "_cxx_runtime.abi3.so",
                           "_torch_registrations.abi3.so", "_debug_leak.abi3.so", "_foreign.abi3.so",
                           "_cuda_kernel.abi3.so", "_hip_kernel.abi3.so"}) {
    const fs::path path = fs::path(KCHECK_ELF_FIXTURES_DIR) / name;
    if (fs::exists(path)) fixtures.push_back(path);
  }
  return fixtures;
}

class MalformedElf : public ::testing::TestWithParam<fs::path> {
 protected:
  void SetUp() override {
    original_ = read_bytes(GetParam());
    ASSERT_GT(original_.size(), 64u);
    layout_ = layout_of(original_);
    ASSERT_GT(layout_.section_count, 0u);
    ASSERT_TRUE(judge_.judge(original_).error.empty()) << "the unmodified fixture must read";
  }

  // Flips one bit of each byte of [begin, end) in turn (bit = byte index % 8)
  // and judges each mutant; a reader error must be reported as KE007.
  std::size_t flip_each_byte(std::size_t begin, std::size_t end) {
    std::size_t mutants = 0;
    for (std::size_t at = begin; at < end && at < original_.size(); ++at) {
      Bytes mutant = original_;
      mutant[at] ^= static_cast<unsigned char>(1u << (at % 8));
      const auto verdict = judge_.judge(mutant);
      if (!verdict.error.empty()) {
        EXPECT_TRUE(reports_ke007_with(verdict, verdict.error)) << "byte " << at;
      }
      ++mutants;
    }
    return mutants;
  }

  void expect_error(const Bytes& mutant, const std::string& reason, const std::string& what) {
    const auto verdict = judge_.judge(mutant);
    EXPECT_NE(verdict.error.find(reason), std::string::npos) << what << ": " << verdict.error;
    EXPECT_TRUE(reports_ke007_with(verdict, reason)) << what;
  }

  Bytes original_;
  Layout layout_;
  ModuleJudge judge_;
};

TEST_P(MalformedElf, EveryTruncationIsReportedAsTruncated) {
  std::set<std::size_t> lengths{0, 1, 3, 4, 15, 16, 17, 51, 52, 63, 64, 65};
  for (std::size_t k = 1; k < 97; ++k) lengths.insert(original_.size() * k / 97);
  for (const Layout::Section& section : layout_.sections) {
    lengths.insert(section.header);
    lengths.insert(section.header + 33);
    lengths.insert(section.offset + section.size / 2);
  }
  for (std::size_t index = 0; index < layout_.segment_count; ++index)
    lengths.insert(layout_.segment_table + index * 56 + 20);
  lengths.insert(original_.size() - 1);
  std::size_t checked = 0;
  for (const std::size_t length : lengths) {
    if (length >= original_.size()) continue;
    const Bytes mutant(original_.begin(), original_.begin() + static_cast<std::ptrdiff_t>(length));
    const auto verdict = judge_.judge(mutant);
    // The section header table ends the file: every cut loses part of it.
    const std::string reason = length < 4    ? "not an ELF file"
                               : length < 64 ? "shorter than an ELF header"
                                             : "truncated";
    if (length >= 4 && length < 16) continue;  // magic but no e_ident: "not an ELF file" too
    EXPECT_NE(verdict.error.find(reason), std::string::npos) << "length " << length << ": " << verdict.error;
    EXPECT_TRUE(reports_ke007_with(verdict, reason)) << "length " << length;
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

TEST_P(MalformedElf, BitFlipsInHeadersTablesDynamicAndVersionSectionsNeverCrash) {
  std::size_t mutants = flip_each_byte(0, 64);
  mutants += flip_each_byte(layout_.section_table, layout_.section_table + layout_.section_count * 64);
  mutants += flip_each_byte(layout_.segment_table, layout_.segment_table + layout_.segment_count * 56);
  for (const std::uint32_t type : {kDynamic, kVersionNeeds, kVersionDefinitions, kSymbolVersions, kDynamicSymbols}) {
    if (const Layout::Section* section = layout_.of_type(type))
      mutants += flip_each_byte(section->offset, section->offset + std::min<std::uint64_t>(section->size, 1024));
  }
  EXPECT_GT(mutants, 1000u);
}

TEST_P(MalformedElf, TablesAndCountsBeyondTheFileAreReported) {
  Bytes mutant = original_;
  set_field<std::uint64_t>(mutant, 40, original_.size() + 4096);  // e_shoff
  expect_error(mutant, "section header table at", "e_shoff past the end");

  mutant = original_;
  set_field<std::uint16_t>(mutant, 60, 0xfffe);  // e_shnum
  expect_error(mutant, "section header table (65534 entries", "e_shnum too large");

  mutant = original_;
  set_field<std::uint64_t>(mutant, 32, original_.size() - 8);  // e_phoff
  expect_error(mutant, "program header table", "e_phoff past the end");

  mutant = original_;
  set_field<std::uint16_t>(mutant, 62, layout_.section_count + 5);  // e_shstrndx
  expect_error(mutant, "section name table index", "e_shstrndx out of range");

  // Extended numbering: e_shnum 0 and the real count in section 0's sh_size.
  mutant = original_;
  set_field<std::uint16_t>(mutant, 60, 0);
  set_field<std::uint64_t>(mutant, layout_.section_table + 32, std::uint64_t{1} << 40);
  expect_error(mutant, "section header table", "extended section count too large");
}

TEST_P(MalformedElf, HugeStringTablesAndOffsetsAreReported) {
  const Layout::Section* dynamic_symbols = layout_.of_type(kDynamicSymbols);
  ASSERT_NE(dynamic_symbols, nullptr);
  for (const Layout::Section& section : layout_.sections) {
    if (section.type != kStrings) continue;
    Bytes mutant = original_;
    set_field<std::uint64_t>(mutant, section.header + 32, std::uint64_t{1} << 62);  // sh_size
    expect_error(mutant, "ends past the end of the file", "string table of 2^62 bytes");
    mutant = original_;
    set_field<std::uint64_t>(mutant, section.header + 24, ~std::uint64_t{0} - 8);  // sh_offset near 2^64
    expect_error(mutant, "ends past the end of the file", "string table offset wrapping around");
  }
  // Every symbol name pointing past its string table.
  Bytes mutant = original_;
  for (std::uint64_t at = dynamic_symbols->offset + 24; at + 24 <= dynamic_symbols->offset + dynamic_symbols->size;
       at += 24)
    set_field<std::uint32_t>(mutant, at, 0x7fffffff);
  expect_error(mutant, "past the end of string table", "symbol names out of range");
}

TEST_P(MalformedElf, TheNullSectionIsNeverReadAsAStringTable) {
  // Found by fuzz_elf (SIGSEGV in memchr): e_shstrndx = SHN_UNDEF with the
  // null section's sh_offset far past the file. Without section names the
  // module is still read (sections are found by type).
  Bytes no_names = original_;
  set_field<std::uint16_t>(no_names, 0x3e, 0);                                      // e_shstrndx
  set_field<std::uint64_t>(no_names, layout_.section_table + 24, 0x1600000015ull);  // section 0 sh_offset
  set_field<std::uint64_t>(no_names, layout_.section_table + 32, 8);                // section 0 sh_size
  const auto verdict = judge_.judge(no_names);
  EXPECT_EQ(verdict.error, "");

  // A symbol table whose string table is the null section: an error, not a read.
  const Layout::Section* dynamic_symbols = layout_.of_type(kDynamicSymbols);
  if (dynamic_symbols == nullptr) GTEST_SKIP() << "no .dynsym";
  Bytes null_strings = no_names;
  set_field<std::uint32_t>(null_strings, dynamic_symbols->header + 40, 0);  // sh_link
  expect_error(null_strings, "links to section 0, which does not exist", ".dynsym linked to the null section");
}

TEST_P(MalformedElf, CircularAndOverlongVersionNeedChainsAreBounded) {
  const Layout::Section* needs = layout_.of_type(kVersionNeeds);
  if (needs == nullptr) GTEST_SKIP() << "no .gnu.version_r";
  // Every Verneed claims 0xffff versions whose chain starts at the first aux
  // entry: the files share one chain (the shape a cycle takes when offsets
  // only move forward) and the section's sh_info claims 2^32-1 files.
  Bytes shared = original_;
  set_field<std::uint32_t>(shared, needs->header + 44, 0xffffffff);  // sh_info
  std::uint64_t offset = needs->offset;
  for (int file = 0; file < 64 && offset + 16 <= needs->offset + needs->size; ++file) {
    set_field<std::uint16_t>(shared, offset + 2, 0xffff);                     // vn_cnt
    set_field<std::uint32_t>(shared, offset + 8, 16);                         // vn_aux
    const std::uint32_t next = field<std::uint32_t>(original_, offset + 12);  // vn_next
    if (next == 0) break;
    offset += next;
  }
  for (std::uint64_t at = needs->offset + 16; at + 16 <= needs->offset + needs->size; at += 16)
    set_field<std::uint32_t>(shared, at + 12, 16);  // vna_next / vn_next: one step forward each
  const auto verdict = judge_.judge(shared);
  EXPECT_FALSE(verdict.error.empty());
  EXPECT_TRUE(verdict.error.find("version-need chains") != std::string::npos ||
              verdict.error.find("truncated") != std::string::npos)
      << verdict.error;
  EXPECT_TRUE(reports_ke007_with(verdict, verdict.error));

  // An overlong chain: the last Vernaux points past the section.
  Bytes overlong = original_;
  for (std::uint64_t at = needs->offset; at + 16 <= needs->offset + needs->size; at += 16) {
    if (field<std::uint32_t>(overlong, at + 12) == 0) set_field<std::uint32_t>(overlong, at + 12, 0x7fff0000);
  }
  const auto long_verdict = judge_.judge(overlong);
  EXPECT_NE(long_verdict.error.find("truncated"), std::string::npos) << long_verdict.error;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, MalformedElf, ::testing::ValuesIn(elf_fixtures()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           std::string name = info.param.stem().stem().string();
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return "fixture" + name;
                         });

// The whole tree: the truncated module of one variant is reported with the
// reason; the other variant is audited normally; exit status 1.
TEST(MalformedModuleInTree, IsReportedAndTheRestIsAuditedNormally) {
  ScratchDir scratch;
  const fs::path repo = scratch.path() / "repo";
  fs::copy(fs::path(KCHECK_TREE_FIXTURES_DIR) / "clean_cpu_variants_from_template", repo,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const std::string module = "build/torch213-cxx11-cpu-x86_64-linux/_relu_cpu_0a1b2c3.abi3.so";
  const Bytes whole = read_bytes(repo / module);
  fs::resize_file(repo / module, whole.size() / 2);
  const Outcome outcome = run_kcheck({"--format", "json", repo.string()}, Bounds{}, scratch.path());
  EXPECT_EQ(outcome.signal, 0);
  EXPECT_EQ(outcome.exit_code, 1) << outcome.err;
  // The digest no longer matches either; nothing is reported on the other variant.
  EXPECT_EQ(
      finding_keys(outcome.report),
      (std::multiset<std::string>{"KE007@" + module, "KM007@build/torch213-cxx11-cpu-x86_64-linux/metadata.json"}))
      << outcome.out.substr(0, 4000);
  const auto reasons = messages(outcome.report, "KE007", module);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("truncated"), std::string::npos) << reasons[0];
  ASSERT_TRUE(outcome.report.contains("variants"));
  EXPECT_EQ(outcome.report["variants"].size(), 2u);
}

}  // namespace
}  // namespace kcheck::security_test
