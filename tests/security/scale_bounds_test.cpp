// Inputs built to be large (issue #14, items 4 and 5): a .nv_fatbin with
// 200,000 distinct archs, a symbol table with 160,000 TORCH_LIBRARY
// namespaces, metadata.json files of 16 MB, of 60,000 unknown keys, nested
// 200,000 levels deep, or with a name of 900,000 characters. Each is
// generated here (nothing large is committed). The readers are checked in
// process for the bound and its reason; the metadata files also through the
// CLI under the address-space limit, for the exact findings and the peak
// memory.
#include <gtest/gtest.h>

#include <cstring>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/rule.h"
#include "checker/facts/tree_facts.h"
#include "checker/elf/elf_device_code.h"
#include "checker/kinds/elf_facts.h"
#include "checker/metadata/metadata_reader.h"
#include "checker/namespace/rules/namespace_rule_table.h"
#include "tests/security/security_test_support.h"

namespace kcheck::security_test {
namespace {

using Bytes = std::string;

template <typename T>
void put(Bytes& bytes, std::size_t offset, T value) {
  if (bytes.size() < offset + sizeof(T)) bytes.resize(offset + sizeof(T), '\0');
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

// A CUDA fat binary of one container holding one empty cubin entry per arch.
Bytes cuda_fatbin(const std::vector<std::uint32_t>& archs) {
  constexpr std::size_t kEntry = 64;
  Bytes bytes(16 + archs.size() * kEntry, '\0');
  put<std::uint32_t>(bytes, 0, 0xBA55ED50);
  put<std::uint16_t>(bytes, 4, 1);
  put<std::uint16_t>(bytes, 6, 16);
  put<std::uint64_t>(bytes, 8, archs.size() * kEntry);
  for (std::size_t index = 0; index < archs.size(); ++index) {
    const std::size_t entry = 16 + index * kEntry;
    put<std::uint16_t>(bytes, entry, 2);  // cubin
    put<std::uint32_t>(bytes, entry + 4, kEntry);
    put<std::uint64_t>(bytes, entry + 8, 0);
    put<std::uint32_t>(bytes, entry + 28, archs[index]);
    put<std::uint64_t>(bytes, entry + 40, 0);
  }
  return bytes;
}

// A minimal ELF64 x86-64 shared object: a .symtab of `symbols` (local, in
// no section), each name stored once and referenced by `copies` entries,
// and, when given, a .nv_fatbin. Written by hand so that hostile sizes need
// no compiler.
Bytes minimal_elf(const std::vector<std::string>& symbols, const Bytes& fatbin, std::size_t copies = 1) {
  struct Section {
    std::string name;
    std::uint32_t type;
    Bytes contents;
    std::uint32_t link = 0;
    std::uint64_t entry_size = 0;
  };
  Bytes names(1, '\0'), table(24, '\0');  // the null symbol
  for (const std::string& symbol : symbols) {
    for (std::size_t copy = 0; copy < copies; ++copy) {
      const std::size_t at = table.size();
      put<std::uint32_t>(table, at, static_cast<std::uint32_t>(names.size()));
      put<std::uint64_t>(table, at + 16, 0);
    }
    names += symbol + '\0';
  }
  std::vector<Section> sections{{"", 0, {}}, {".strtab", 3, names}, {".symtab", 2, table, 1, 24}};
  if (!fatbin.empty()) sections.push_back({".nv_fatbin", 1, fatbin});
  Bytes section_names(1, '\0');
  std::vector<std::uint32_t> name_offsets;
  sections.push_back({".shstrtab", 3, {}});
  for (const Section& section : sections) {
    name_offsets.push_back(section.name.empty() ? 0 : static_cast<std::uint32_t>(section_names.size()));
    if (!section.name.empty()) section_names += section.name + '\0';
  }
  sections.back().contents = section_names;

  Bytes elf(64, '\0');
  std::vector<std::uint64_t> offsets;
  for (const Section& section : sections) {
    offsets.push_back(elf.size());
    elf += section.contents;
    elf.resize((elf.size() + 7) / 8 * 8, '\0');
  }
  const std::uint64_t section_table = elf.size();
  for (std::size_t index = 0; index < sections.size(); ++index) {
    const std::size_t header = section_table + index * 64;
    put<std::uint32_t>(elf, header, name_offsets[index]);
    put<std::uint32_t>(elf, header + 4, sections[index].type);
    put<std::uint64_t>(elf, header + 24, index == 0 ? 0 : offsets[index]);
    put<std::uint64_t>(elf, header + 32, sections[index].contents.size());
    put<std::uint32_t>(elf, header + 40, sections[index].link);
    put<std::uint64_t>(elf, header + 48, 1);
    put<std::uint64_t>(elf, header + 56, sections[index].entry_size);
  }
  std::memcpy(elf.data(),
              "\x7f"
              "ELF\x02\x01\x01",
              7);
  put<std::uint16_t>(elf, 16, 3);   // ET_DYN
  put<std::uint16_t>(elf, 18, 62);  // EM_X86_64
  put<std::uint32_t>(elf, 20, 1);
  put<std::uint64_t>(elf, 40, section_table);
  put<std::uint16_t>(elf, 52, 64);
  put<std::uint16_t>(elf, 54, 56);
  put<std::uint16_t>(elf, 58, 64);
  put<std::uint16_t>(elf, 60, static_cast<std::uint16_t>(sections.size()));
  put<std::uint16_t>(elf, 62, static_cast<std::uint16_t>(sections.size() - 1));
  return elf;
}

void write_file(const fs::path& file, const Bytes& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(DeviceCodeBound, TwoHundredThousandDistinctArchsStopAtTheBoundInArchOrder) {
  std::vector<std::uint32_t> archs;
  for (std::uint32_t arch = 200000; arch > 0; --arch)
    archs.push_back(arch);  // descending: the worst case for a sorted insert
  const Bytes fatbin = cuda_fatbin(archs);
  ASSERT_EQ(fatbin.size(), 16u + 200000u * 64u);  // 12.8 MB, as in the report
  DeviceCodeFacts device_code;
  read_cuda_fatbin(std::as_bytes(std::span(fatbin.data(), fatbin.size())), device_code);
  EXPECT_EQ(device_code.error, "more than 256 distinct SASS archs in .nv_fatbin; the rest are not listed");
  ASSERT_EQ(device_code.cuda_sass_archs.size(), kMaxDeviceCodeArchs);
  EXPECT_EQ(device_code.cuda_sass_archs.front(), "sm_199745");
  EXPECT_EQ(device_code.cuda_sass_archs.back(), "sm_200000");
}

TEST(DeviceCodeBound, ManyEntriesOfFewArchsAreListedOnce) {
  std::vector<std::uint32_t> archs;
  for (int repeat = 0; repeat < 50000; ++repeat)
    for (std::uint32_t arch : {100u, 90u, 80u, 75u}) archs.push_back(arch);
  const Bytes fatbin = cuda_fatbin(archs);
  DeviceCodeFacts device_code;
  read_cuda_fatbin(std::as_bytes(std::span(fatbin.data(), fatbin.size())), device_code);
  EXPECT_EQ(device_code.error, "");
  EXPECT_EQ(device_code.cuda_sass_archs, (std::vector<std::string>{"sm_75", "sm_80", "sm_90", "sm_100"}));
}

TEST(DeviceCodeBound, HipTargetsWithNumbersPastAnyIntegerAreOrderedWithoutOverflow) {
  // Two offload bundle entries; ordering them used std::stoul, which throws
  // out_of_range on a number of more than 20 digits.
  const std::string huge = "gfx" + std::string(40, '9');
  Bytes bundle = "__CLANG_OFFLOAD_BUNDLE__";
  put<std::uint64_t>(bundle, bundle.size(), 2);
  for (const std::string& triple :
       {"hipv4-amdgcn-amd-amdhsa--" + huge, std::string("hipv4-amdgcn-amd-amdhsa--gfx90a")}) {
    put<std::uint64_t>(bundle, bundle.size(), 0);
    put<std::uint64_t>(bundle, bundle.size(), 0);
    put<std::uint64_t>(bundle, bundle.size(), triple.size());
    bundle += triple;
  }
  DeviceCodeFacts device_code;
  EXPECT_NO_THROW(read_hip_fatbin(std::as_bytes(std::span(bundle.data(), bundle.size())), device_code));
  EXPECT_EQ(device_code.error, "");
  EXPECT_EQ(device_code.hip_targets, (std::vector<std::string>{"gfx90a", huge}));
}

// Class 4 through the command line: one module with the 12.8 MB fat binary of
// 200,000 distinct archs and 160,000 TORCH_LIBRARY namespaces is audited
// within the CPU and memory bounds, and both bounds are said in findings.
TEST(ScaleBoundsCli, AModuleAtBothBoundsIsAuditedAndTheBoundsAreSaid) {
  std::vector<std::uint32_t> archs;
  archs.reserve(200000);
  for (std::uint32_t arch = 200000; arch > 0; --arch) archs.push_back(arch);
  std::vector<std::string> symbols;
  symbols.reserve(160000);
  for (int index = 0; index < 160000; ++index)
    symbols.push_back("TORCH_LIBRARY_static_init_ns" + std::to_string(index));
  ScratchDir scratch;
  const fs::path module = scratch.path() / "_many_cuda_0123456.abi3.so";
  write_file(module, minimal_elf(symbols, cuda_fatbin(archs)));
  Bounds bounds;
  bounds.cpu_seconds = 60;
  const Outcome outcome =
      run_kcheck({"--format", "json", "--select", "KE014,KO001", module.string()}, bounds, scratch.path());
  EXPECT_FALSE(outcome.killed_at_wall_limit);
  EXPECT_EQ(outcome.signal, 0) << outcome.err;
  ASSERT_LE(outcome.exit_code, 1) << outcome.err;
  bool arch_bound = false, namespace_bound = false;
  for (const auto& finding : outcome.report["findings"]) {
    const std::string message = finding["message"];
    arch_bound = arch_bound ||
                 (finding["code"] == "KE014" && message.find("more than 256 distinct SASS archs") != std::string::npos);
    namespace_bound =
        namespace_bound || (finding["code"] == "KO001" && message.find("more than 64 namespaces") != std::string::npos);
  }
  EXPECT_TRUE(arch_bound) << outcome.out.substr(0, 3000);
  EXPECT_TRUE(namespace_bound) << outcome.out.substr(0, 3000);
}

TEST(NamespaceBound, OneHundredSixtyThousandRegistrationsKeepTheFirstSixtyFourAndSaySo) {
  std::vector<std::string> symbols;
  symbols.reserve(160000);
  for (int index = 0; index < 160000; ++index)
    symbols.push_back("TORCH_LIBRARY_static_init_ns" + std::to_string(index));
  ScratchDir scratch;
  const fs::path module = scratch.path() / "_many_cpu_0123456.abi3.so";
  write_file(module, minimal_elf(symbols, cuda_fatbin({80, 90})));
  const ElfFacts facts = read_elf_facts(module);
  ASSERT_EQ(facts.error, "");
  ASSERT_EQ(facts.torch_library_namespaces.size(), kMaxTorchLibraryNamespaces);
  EXPECT_EQ(facts.torch_library_namespaces.front(), "ns0");
  EXPECT_EQ(facts.torch_library_namespaces.back(), "ns63");
  EXPECT_TRUE(facts.more_torch_library_namespaces);
  ASSERT_TRUE(facts.device_code);
  EXPECT_EQ(facts.device_code->cuda_sass_archs, (std::vector<std::string>{"sm_80", "sm_90"}));

  TreeFacts tree;
  tree.scope = AuditScope::module;
  VariantFacts& variant = tree.variants.emplace_back();
  NativeModuleFacts& native = variant.native_modules.emplace_back();
  native.relative_path = module.filename().string();
  native.elf = facts;
  RuleRegistry rules;
  add_rules(rules, kNamespaceRules);
  const Policy policy = load_policy("hub");
  const AuditOptions options;
  const RuleContext context{tree, policy, options.rule_options()};
  Findings findings;
  for (const Rule* rule : rules.rules()) {
    if (rule->info().code != "KO001") continue;
    FindingSink sink(rule->info(), findings);
    rule->check(context, sink);
  }
  ASSERT_EQ(findings.size(), kMaxTorchLibraryNamespaces + 1) << "one per namespace kept, and the bound";
  EXPECT_EQ(findings.back().message,
            "the native module registers Torch ops under more than 64 namespaces; only the first 64 are compared "
            "(a kernel registers one)");
}

TEST(StringTableBound, EntriesSharingOneLongNameAreAReaderErrorNotEntriesTimesLength) {
  // 100,000 symbols naming one 1 MB string: 100 GB of names from a 3.4 MB file.
  ScratchDir scratch;
  const fs::path module = scratch.path() / "_shared_cpu_0123456.abi3.so";
  write_file(module, minimal_elf({"TORCH_LIBRARY_static_init_" + std::string(1 << 20, 'n')}, {}, 100000));
  const ElfFacts facts = read_elf_facts(module);
  EXPECT_NE(facts.error.find("the string tables are referenced far beyond their size"), std::string::npos)
      << facts.error;
}

// metadata.json files through the CLI, under the process bounds.
const std::string kVariant = "torch213-cxx11-cpu-x86_64-linux";
const std::string kMetadata = "build/" + kVariant + "/metadata.json";
// Peak resident memory allowed: 512 MiB (2 GiB with ASan's shadow and quarantine).
constexpr long kMaxRssKb = kAddressSanitizer ? 2L * 1024 * 1024 : 512L * 1024;

class HostileMetadata : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = copy_tree_fixture("clean_cpu_variants_from_template", scratch_.path() / "repo");
    clean_ = nlohmann::json::parse(read_all(repo_ / kMetadata));
  }

  // Writes metadata.json of the first variant; audits the tree.
  Outcome audit_with_metadata(const std::string& text) {
    write_file(repo_ / kMetadata, text);
    Outcome outcome = run_kcheck({"--format", "json", "--threads", "2", repo_.string()}, Bounds{}, scratch_.path());
    EXPECT_FALSE(outcome.killed_at_wall_limit);
    EXPECT_EQ(outcome.signal, 0) << outcome.err;
    EXPECT_EQ(outcome.exit_code, 1) << outcome.err;
    EXPECT_TRUE(outcome.report.is_object()) << outcome.out.substr(0, 2000) << outcome.err;
    EXPECT_LT(outcome.max_rss_kb, kMaxRssKb);
    return outcome;
  }

  // The clean document as text with `extra` spliced in before its last brace.
  std::string clean_with(const std::string& extra) const {
    std::string text = clean_.dump();
    text.insert(text.size() - 1, "," + extra);
    return text;
  }

  ScratchDir scratch_;
  fs::path repo_;
  nlohmann::json clean_;
};

TEST_F(HostileMetadata, SixteenMegabytesOfArrayIsAFindingAndNotParsed) {
  std::string items;
  for (int index = 0; index < 4'000'000; ++index) items += "\"x\",";
  items.pop_back();
  const Outcome outcome = audit_with_metadata(clean_with("\"python-depends-backends\": {\"cuda\": [" + items + "]}"));
  EXPECT_EQ(finding_keys(outcome.report), (std::multiset<std::string>{"KM002@" + kMetadata}))
      << outcome.out.substr(0, 4000);
  const auto found = messages(outcome.report, "KM002", kMetadata);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("above the bound of 1048576"), std::string::npos) << found[0];
}

TEST_F(HostileMetadata, ListsAndUnknownKeysStopAtTheirBoundsWithAnError) {
  std::string extra = "\"kernel-depends\": [";
  for (int index = 0; index < 2000; ++index) extra += std::string(index ? "," : "") + "1";
  extra += "]";
  for (int index = 0; index < 60000; ++index) extra += ",\"k" + std::to_string(index) + "\": 0";
  const std::string text = clean_with(extra);
  ASSERT_LT(text.size(), kMaxMetadataBytes);
  const Outcome outcome = audit_with_metadata(text);
  const std::multiset<std::string> found = finding_keys(outcome.report);
  // kernel-depends: the length bound, then "must be an object" for the first
  // 255 entries read (the problem bound), one line for the problems not
  // listed; and 256 unknown-key warnings.
  EXPECT_EQ(found.size(), 256u + 1u + 256u) << outcome.out.substr(0, 2000);
  EXPECT_EQ(found.count("KM002@" + kMetadata), found.size());
  const auto texts = messages(outcome.report, "KM002", kMetadata);
  const auto has = [&](const std::string& part) {
    return std::any_of(texts.begin(), texts.end(),
                       [&](const std::string& text) { return text.find(part) != std::string::npos; });
  };
  EXPECT_TRUE(has("/kernel-depends: has 2000 entries, more than the bound of 1024; the rest are not read"));
  EXPECT_TRUE(has("more schema problems not listed (kcheck lists the first 256)"));
  EXPECT_EQ(std::count_if(texts.begin(), texts.end(),
                          [](const std::string& text) { return text.starts_with("unknown top-level key 'k"); }),
            256);
}

// 300,000 empty objects in one array (900 KB): nlohmann's parse callback,
// which the duplicate-key check once used, walked the array's members at each
// object's end, 26 s of CPU here; the check is a linear SAX pass now. A 10 s
// CPU bound (the parse takes 0.07 s) makes the quadratic form fail.
TEST_F(HostileMetadata, ManyEmptyObjectsInOneArrayAreReadInLinearTime) {
  std::string objects = "[";
  for (int index = 0; index < 300'000; ++index) objects += index ? ",{}" : "{}";
  objects += "]";
  write_file(repo_ / kMetadata, clean_with("\"extra\": " + objects));
  Bounds bounds;
  bounds.cpu_seconds = 10;
  const Outcome outcome = run_kcheck({"--format", "json", repo_.string()}, bounds, scratch_.path());
  EXPECT_EQ(outcome.signal, 0) << "SIGXCPU: the parse is not linear";
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;  // an unknown key is a warning
  EXPECT_EQ(finding_keys(outcome.report).count("KM002@" + kMetadata), 1u) << outcome.out.substr(0, 2000);
}

TEST_F(HostileMetadata, DeepNestingIsAFindingNotAStackOverflow) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  nlohmann::json document = clean_;
  document.erase("version");
  std::string text = document.dump();
  text.insert(text.size() - 1, ",\"version\": " + deep);
  const Outcome outcome = audit_with_metadata(text);
  EXPECT_EQ(finding_keys(outcome.report), (std::multiset<std::string>{"KM002@" + kMetadata}))
      << outcome.out.substr(0, 4000);
  const auto found = messages(outcome.report, "KM002", kMetadata);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("nested deeper than 32 levels"), std::string::npos) << found[0];
}

TEST_F(HostileMetadata, AVeryLongNameIsJudgedWithoutRecursion) {
  nlohmann::json document = clean_;
  document["name"] = std::string(900000, 'a') + "-";
  const Outcome outcome = audit_with_metadata(document.dump());
  const std::multiset<std::string> found = finding_keys(outcome.report);
  EXPECT_EQ(found.count("KM002@" + kMetadata), 1u) << outcome.out.substr(0, 2000);
  const auto texts = messages(outcome.report, "KM002", kMetadata);
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_NE(texts[0].find("is not a kernel name"), std::string::npos);
}

}  // namespace
}  // namespace kcheck::security_test
