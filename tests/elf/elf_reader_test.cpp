// read_elf_facts on the fixtures and on malformed input: facts, namespaces,
// device code, and errors that name the reason instead of crashing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string_view>
#include <thread>
#include <utility>

#include "tests/elf/elf_test_support.h"
#include "checker/support/work_pool.h"
#include "checker/elf/elf_device_code.h"
#include "checker/elf/elf_readers.h"
#include "checker/elf/fatbin_walk_along_scan.h"

namespace kcheck::testing {
namespace {

using Strings = std::vector<std::string>;

std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A scratch copy of a fixture, changed by the test.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& bytes) {
    path_ = std::filesystem::temp_directory_path() /
            ("kcheck-elf-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++) + ".so");
    std::ofstream(path_, std::ios::binary) << bytes;
  }
  ~ScratchFile() { std::filesystem::remove(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

void put_u64(std::string& bytes, std::size_t offset, std::uint64_t value) {
  std::memcpy(bytes.data() + offset, &value, 8);
}
void put_u16(std::string& bytes, std::size_t offset, std::uint16_t value) {
  std::memcpy(bytes.data() + offset, &value, 2);
}

TEST(ElfReader, ReadsTheCleanFixture) {
  const ElfFacts facts = read_elf_facts(elf_fixture("_clean.abi3.so"));
  ASSERT_EQ(facts.error, "");
  EXPECT_EQ(facts.elf_class, 64);
  EXPECT_EQ(facts.machine_name, "x86_64");
  EXPECT_TRUE(facts.is_shared_object());
  EXPECT_EQ(facts.needed, Strings{"libc.so.6"});
  EXPECT_TRUE(facts.has_relro);
  EXPECT_TRUE(facts.bind_now);
  EXPECT_FALSE(facts.executable_stack);
  EXPECT_FALSE(facts.device_code.has_value());
  bool found_memcpy = false;
  for (const ElfImportedSymbol& symbol : facts.imports) {
    if (symbol.name == "memcpy") {
      found_memcpy = true;
      EXPECT_EQ(symbol.version, "GLIBC_2.14");
      EXPECT_EQ(symbol.library, "libc.so.6");
    }
  }
  EXPECT_TRUE(found_memcpy);
}

TEST(ElfReader, ReadsSearchPathsStackAndTextRelocations) {
  EXPECT_EQ(read_elf_facts(elf_fixture("_absolute_rpath.abi3.so")).runpath, Strings{"/opt/kernels/lib"});
  EXPECT_EQ(read_elf_facts(elf_fixture("_origin_rpath.abi3.so")).runpath, Strings{"$ORIGIN/lib"});
  EXPECT_TRUE(read_elf_facts(elf_fixture("_execstack.abi3.so")).executable_stack);
  EXPECT_TRUE(read_elf_facts(elf_fixture("_text_relocation.abi3.so")).text_relocations);
  const ElfFacts leaky = read_elf_facts(elf_fixture("_debug_leak.abi3.so"));
  EXPECT_TRUE(leaky.has_debug_sections);
  ASSERT_FALSE(leaky.leaked_build_paths.empty());
  EXPECT_TRUE(leaky.leaked_build_paths.front().starts_with("/home/builder/kernel")) << leaky.leaked_build_paths.front();
}

TEST(ElfReader, FindsTorchLibraryNamespacesInBothSymbolTables) {
  const ElfFacts facts = read_elf_facts(elf_fixture("_torch_registrations.abi3.so"));
  ASSERT_EQ(facts.error, "");
  EXPECT_EQ(facts.torch_library_namespaces, (Strings{"_demo_cuda_1a2b3c4", "_st_cpu_abc"}));
  EXPECT_TRUE(read_elf_facts(elf_fixture("_clean.abi3.so")).torch_library_namespaces.empty());
}

TEST(ElfReader, ListsCudaSassAndPtxArchs) {
  KCHECK_REQUIRE_FIXTURE("_cuda_kernel.abi3.so");
  const ElfFacts facts = read_elf_facts(elf_fixture("_cuda_kernel.abi3.so"));
  ASSERT_TRUE(facts.device_code.has_value());
  EXPECT_EQ(facts.device_code->error, "");
  EXPECT_EQ(facts.device_code->cuda_sass_archs, (Strings{"sm_80", "sm_90a"}));
  EXPECT_EQ(facts.device_code->cuda_ptx_archs, Strings{"compute_90"});
}

TEST(ElfReader, ListsHipTargets) {
  KCHECK_REQUIRE_FIXTURE("_hip_kernel.abi3.so");
  const ElfFacts facts = read_elf_facts(elf_fixture("_hip_kernel.abi3.so"));
  ASSERT_TRUE(facts.device_code.has_value());
  EXPECT_EQ(facts.device_code->error, "");
  EXPECT_EQ(facts.device_code->hip_targets, (Strings{"gfx90a", "gfx1030"}));
}

TEST(ElfReader, ReportsAFatBinaryContainerThatDoesNotFit) {
  // magic, version 1, header 16 bytes, claims 4096 bytes of entries: there are none.
  const unsigned char header[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0, 16, 0, 0, 0, 0, 0, 0};
  DeviceCodeFacts device_code;
  read_cuda_fatbin(std::as_bytes(std::span(header)), device_code);
  EXPECT_NE(device_code.error.find("extends past the end"), std::string::npos) << device_code.error;
}

TEST(ElfReader, ReadsEveryVersionNeed) {
  const ElfFacts facts = read_elf_facts(elf_fixture("_packed_relocations.abi3.so"));
  ASSERT_TRUE(facts.error.empty()) << facts.error;
  Strings needs;
  for (const ElfVersionNeed& need : facts.version_needs) {
    EXPECT_EQ(need.library, "libc.so.6");
    EXPECT_FALSE(need.weak);
    needs.push_back(need.version);
  }
  std::sort(needs.begin(), needs.end());
  EXPECT_EQ(needs, (Strings{"GLIBC_2.14", "GLIBC_2.2.5", "GLIBC_ABI_DT_RELR"}));
}

// The ELF hash of a version name: what vna_hash holds (System V ABI).
std::uint32_t elf_hash(std::string_view name) {
  std::uint32_t hash = 0;
  for (const unsigned char c : name) {
    hash = (hash << 4) + c;
    const std::uint32_t high = hash & 0xf0000000u;
    if (high != 0) hash ^= high >> 24;
    hash &= ~high;
  }
  return hash;
}

TEST(ElfReader, AWeakVersionNeedIsReadAndNotJudged) {
  // The same module with VER_FLG_WEAK set on its GLIBC_ABI_DT_RELR need:
  // the loader only warns when a weak need is missing.
  std::string bytes = read_bytes(elf_fixture("_packed_relocations.abi3.so"));
  const std::uint32_t hash = elf_hash("GLIBC_ABI_DT_RELR");
  const std::string hash_bytes(reinterpret_cast<const char*>(&hash), 4);  // little-endian x86_64
  const std::size_t aux = bytes.find(hash_bytes);
  ASSERT_NE(aux, std::string::npos);
  bytes[aux + 4] = 2;  // vna_flags = VER_FLG_WEAK
  const ScratchFile weak(bytes);
  const ElfFacts facts = read_elf_facts(weak.path());
  ASSERT_TRUE(std::any_of(facts.version_needs.begin(), facts.version_needs.end(),
                          [](const ElfVersionNeed& need) { return need.version == "GLIBC_ABI_DT_RELR" && need.weak; }));
  EXPECT_EQ(codes_of(run_native_rules(
                tree_with_module(weak.path(), "torch213-cxx11-cpu-x86_64-linux", "_packed_relocations.abi3.so"),
                load_policy("hub"))),
            Strings{});
}

TEST(ElfReader, ReadOnlyDataIsScannedOnlyWhenAsked) {
  const ElfFacts scanned = read_elf_facts(elf_fixture("_source_path_leak.abi3.so"));
  EXPECT_TRUE(scanned.tables_read.read_only_data);
  EXPECT_EQ(scanned.read_only_data_build_paths, Strings{"/tmp/build/file_macro.c"});
  const ElfFacts skipped = read_elf_facts(elf_fixture("_source_path_leak.abi3.so"), ElfTables{.read_only_data = false});
  EXPECT_FALSE(skipped.tables_read.read_only_data);
  EXPECT_TRUE(skipped.read_only_data_build_paths.empty());
  EXPECT_TRUE(read_elf_facts(elf_fixture("_source_path_mapped.abi3.so")).read_only_data_build_paths.empty());
}

// Issue #32: a large .rodata is scanned in 4 MB pieces, on the pool's threads
// when there is a pool; the paths are those of one pass, in file order: the
// first four distinct, a repeat in a later piece not counted again.
TEST(ElfReader, ReadOnlyDataScannedInPiecesOnAPoolFindsWhatOnePassFinds) {
  const Strings first_four{"/tmp/build/one.cu", "/tmp/build/two.cpp", "/home/ci/src/three.h", "/build/k/four.cuh"};
  const std::filesystem::path fixture = elf_fixture("_source_paths_far_apart.abi3.so");
  EXPECT_EQ(read_elf_facts(fixture).read_only_data_build_paths, first_four);
  for (unsigned threads : {1u, 2u, 4u}) {
    WorkPool pool(threads);
    EXPECT_EQ(read_elf_facts(fixture, {}, &pool).read_only_data_build_paths, first_four) << threads << " threads";
  }
}

void expect_same_device_code(const DeviceCodeFacts& facts, const DeviceCodeFacts& expected) {
  EXPECT_EQ(facts.cuda_sass_archs, expected.cuda_sass_archs);
  EXPECT_EQ(facts.cuda_ptx_archs, expected.cuda_ptx_archs);
  EXPECT_EQ(facts.hip_targets, expected.hip_targets);
  EXPECT_EQ(facts.error, expected.error);
}

const DeviceCodeFacts kAcrossPieces{.cuda_sass_archs = {"sm_80", "sm_90a", "sm_100f"},
                                    .cuda_ptx_archs = {"compute_90"}};

// Issue #32: with KE012 and KE014 both selected, the fat binary's headers are
// walked inside the scan's 4 MB pieces; the fixture's entries lie across
// three of them (one header straddles the first piece's end). The facts are
// those of the walk alone and of the scan alone, with one thread or several.
TEST(ElfReader, FatBinaryWalkedInsideThePiecedScanFindsWhatTheWalkAloneFinds) {
  const std::filesystem::path fixture = elf_fixture("_fatbin_across_pieces.abi3.so");
  const Strings paths{"/tmp/build/fatbin/kernel.cu"};
  const ElfFacts walk_alone = read_elf_facts(fixture, ElfTables{.read_only_data = false});
  ASSERT_TRUE(walk_alone.device_code.has_value());
  expect_same_device_code(*walk_alone.device_code, kAcrossPieces);
  EXPECT_EQ(read_elf_facts(fixture, ElfTables{.device_code = false}).device_code_build_paths, paths);
  const ElfFacts one_pass = read_elf_facts(fixture);
  ASSERT_TRUE(one_pass.device_code.has_value());
  expect_same_device_code(*one_pass.device_code, kAcrossPieces);
  EXPECT_EQ(one_pass.device_code_build_paths, paths);
  for (unsigned threads : {1u, 2u, 4u}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    WorkPool pool(threads);
    for (int round = 0; round < 5; ++round) {
      const ElfFacts facts = read_elf_facts(fixture, {}, &pool);
      ASSERT_TRUE(facts.device_code.has_value());
      expect_same_device_code(*facts.device_code, kAcrossPieces);
      EXPECT_EQ(facts.device_code_build_paths, paths);
    }
  }
}

// The walk inside the scan whatever order the pieces come in: a piece ahead
// of the walk is reached by walking through those before it, whether they
// are being scanned by other threads or have not been started.
TEST(ElfReader, FatBinaryWalkInsideTheScanTakesThePiecesInAnyOrder) {
  const MappedFile file(elf_fixture("_fatbin_across_pieces.abi3.so"));
  ASSERT_EQ(file.error(), "");
  const ElfImage image(file.bytes());
  const auto section = image.contents(*image.find_section(".nv_fatbin"));
  const std::uint64_t start = image.file_offset(section), size = section.size();
  constexpr std::uint64_t kPiece = std::uint64_t{4} << 20;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> pieces = {
      {start, kPiece + 1}, {start + kPiece + 1, kPiece + 1}, {start + 2 * kPiece + 2, size - 2 * kPiece - 2}};
  {
    SCOPED_TRACE("last piece first, one thread");
    DeviceCodeFacts facts;
    CompressedFatbinPayloads compressed;
    {
      FatbinWalkAlongScan walk(image, section, facts, compressed);
      for (std::size_t index = pieces.size(); index-- > 0;) walk.scanned(pieces[index].first, pieces[index].second);
      EXPECT_EQ(walk.finish(), 0u);  // the pieces walked it all
    }
    expect_same_device_code(facts, kAcrossPieces);
  }
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("the three at once, round " + std::to_string(round));
    DeviceCodeFacts facts;
    CompressedFatbinPayloads compressed;
    {
      FatbinWalkAlongScan walk(image, section, facts, compressed);
      {
        std::jthread third([&] { walk.scanned(pieces[2].first, pieces[2].second); });
        std::jthread second([&] { walk.scanned(pieces[1].first, pieces[1].second); });
        walk.scanned(pieces[0].first, pieces[0].second);
      }
      EXPECT_EQ(walk.finish(), 0u);
    }
    expect_same_device_code(facts, kAcrossPieces);
  }
}

// nvcc's -lineinfo line tables in .nv_fatbin, which -ffile-prefix-map does not
// reach (issue #30): the machine's path is found, relative and stable ones are not.
TEST(ElfReader, DeviceCodeLineTablesAreScannedForBuildPaths) {
  const ElfFacts facts = read_elf_facts(elf_fixture("_device_line_table.abi3.so"));
  EXPECT_EQ(facts.device_code_build_paths, Strings{"/tmp/build/relu_cuda/relu.cu"});
  EXPECT_TRUE(facts.read_only_data_build_paths.empty()) << "the section is device code, not .rodata";
  EXPECT_TRUE(read_elf_facts(elf_fixture("_device_line_table.abi3.so"), ElfTables{.read_only_data = false})
                  .device_code_build_paths.empty());
  // KE012 says so, naming the path; and, in a note, that the section (text,
  // not a fat binary) was searched byte by byte, since its headers cannot
  // be walked to find compressed entries.
  const Findings findings =
      run_native_rules(tree_with_module(elf_fixture("_device_line_table.abi3.so"), ""), load_policy("hub"));
  std::vector<std::pair<Severity, std::string>> ke012;
  for (const Finding& finding : findings)
    if (finding.code == "KE012") ke012.emplace_back(finding.severity, finding.message);
  ASSERT_EQ(ke012.size(), 2u);
  EXPECT_EQ(ke012[0].first, Severity::warning);
  EXPECT_NE(ke012[0].second.find("in its device code"), std::string::npos) << ke012[0].second;
  EXPECT_NE(ke012[0].second.find("/tmp/build/relu_cuda/relu.cu"), std::string::npos) << ke012[0].second;
  EXPECT_EQ(ke012[1].first, Severity::note);
  EXPECT_EQ(ke012[1].second,
            "its device code (.nv_fatbin) was searched for build paths byte by byte, not entry by entry: its headers "
            "could not "
            "be walked to the end (no fat binary header at offset 0 of .nv_fatbin), so no entry past that point was "
            "decompressed");
}

// KE012's messages on a fixture.
std::vector<std::string> ke012_messages(const std::string& fixture) {
  std::vector<std::string> messages;
  for (const Finding& finding : run_native_rules(tree_with_module(elf_fixture(fixture), ""), load_policy("hub")))
    if (finding.code == "KE012") messages.push_back(finding.message);
  return messages;
}

// Device code nvcc compressed (issue #32): the entries of .nv_fatbin are
// searched in what they decompress to, whichever of zstd and LZ4 compressed
// them, with or without KE014's facts; those that cannot be are counted and
// KE012 says why, in a warning of its own.
TEST(ElfReader, CompressedDeviceCodeIsSearchedInWhatItDecompressesTo) {
  const std::string fixture = "_fatbin_compressed_entries.abi3.so";
  // The LZ4 block's path is literal in the raw bytes too, so the raw scan
  // finds it first; the zstd frames' paths only decompressed (one straddles
  // the first 256 KiB chunk, and the next follows it in the second chunk).
  const Strings paths = {"/tmp/ci/lz4_kernel.cu", "/home/ci/kernel/hidden.cu", "/home/ci/split/across_chunks.cu",
                         "/home/ci/after/split.cu"};
  WorkPool two_threads(2);
  for (const ElfTables tables : {ElfTables{}, ElfTables{.device_code = false}}) {
    for (WorkPool* pool : {static_cast<WorkPool*>(nullptr), &two_threads}) {
      const ElfFacts facts = read_elf_facts(elf_fixture(fixture), tables, pool);
      ASSERT_EQ(facts.error, "");
      EXPECT_EQ(facts.device_code_build_paths, paths);
      // Not a zstd frame, both flags, more than it declares, bytes after
      // its frame, and 5 GiB declared: past 64 times the section's size.
      EXPECT_EQ(facts.unsearched_device_code_entries, 5u);
      EXPECT_EQ(facts.unsearched_device_code_section, ".nv_fatbin");
      EXPECT_EQ(facts.device_code_walk_stopped, "");
      EXPECT_EQ(facts.unsearched_device_code_reason,
                "the entry at offset 262584 of .nv_fatbin: not a valid zstd frame (Unknown frame descriptor)");
      EXPECT_EQ(facts.device_code.has_value(), tables.device_code);
      if (facts.device_code) {
        EXPECT_EQ(facts.device_code->cuda_ptx_archs, Strings{"compute_90"});
      }
    }
  }
  // Without KE012's tables nothing is decompressed.
  const ElfFacts device_code_only = read_elf_facts(elf_fixture(fixture), ElfTables{.read_only_data = false});
  EXPECT_TRUE(device_code_only.device_code_build_paths.empty());
  EXPECT_EQ(device_code_only.unsearched_device_code_entries, 0u);

  const std::vector<std::string> messages = ke012_messages(fixture);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_NE(messages[0].find("/home/ci/kernel/hidden.cu"), std::string::npos) << messages[0];
  EXPECT_EQ(messages[1],
            "5 compressed entries of its device code were not searched for build paths; the first: "
            "the entry at offset 262584 of .nv_fatbin: not a valid zstd frame (Unknown frame descriptor)");
}

// Where a section of a fixture starts in its file.
std::size_t section_file_offset(const std::string& fixture, const char* section) {
  const MappedFile file(elf_fixture(fixture));
  const ElfImage image(file.bytes());
  return static_cast<std::size_t>(image.file_offset(image.contents(*image.find_section(section))));
}

// A header that stops the walk of .nv_fatbin hides the compressed entries
// after it from the list KE012 decompresses: the bytes past it are searched
// raw, and since zstd frames lie there KE012 warns that an entry may have
// gone unsearched; the entries before it are still decompressed.
TEST(ElfReader, AWalkStoppedBeforeZstdFramesIsAWarning) {
  const std::string fixture = "_fatbin_compressed_entries.abi3.so";
  std::string bytes = read_bytes(elf_fixture(fixture));
  // The header size of the entry "not_zstd" (at 262520 in the section):
  // past its container.
  const std::size_t header_size = section_file_offset(fixture, ".nv_fatbin") + 262520 + 4;
  std::memcpy(bytes.data() + header_size, "\xff\xff\xff\x7f", 4);
  const ScratchFile broken(bytes);
  const ElfFacts facts = read_elf_facts(broken.path());
  ASSERT_EQ(facts.error, "");
  EXPECT_EQ(facts.device_code_build_paths, (Strings{"/tmp/ci/lz4_kernel.cu", "/home/ci/kernel/hidden.cu",
                                                    "/home/ci/split/across_chunks.cu", "/home/ci/after/split.cu"}));
  EXPECT_EQ(facts.unsearched_device_code_entries, 0u) << "the entries past the stop are not listed, so not counted";
  EXPECT_EQ(facts.device_code_walk_stopped,
            "its headers could not be walked to the end (fat binary entry at offset 262520 of .nv_fatbin extends "
            "past its container), so no entry past that point was decompressed");
  EXPECT_TRUE(facts.device_code_walk_stopped_before_zstd);
  const Findings findings = run_native_rules(tree_with_module(broken.path(), ""), load_policy("hub"));
  const auto stopped = std::find_if(findings.begin(), findings.end(), [](const Finding& finding) {
    return finding.code == "KE012" && finding.message.find("byte by byte") != std::string::npos;
  });
  ASSERT_NE(stopped, findings.end());
  EXPECT_EQ(stopped->severity, Severity::warning);
  EXPECT_NE(stopped->message.find("a compressed entry may have gone unsearched"), std::string::npos);
}

// "CCOB" inside an uncompressed code object is its bytes, not a bundle:
// only where a bundle starts (a 4096-byte boundary of .hip_fatbin) counts.
TEST(ElfReader, CcobBytesInsideACodeObjectAreNotABundle) {
  KCHECK_REQUIRE_FIXTURE("_hip_kernel.abi3.so");
  std::string bytes = read_bytes(elf_fixture("_hip_kernel.abi3.so"));
  const std::size_t hip = section_file_offset("_hip_kernel.abi3.so", ".hip_fatbin");
  std::memcpy(bytes.data() + hip + 4096 + 100, "CCOB", 4);  // inside the first code object
  const ScratchFile patched(bytes);
  const ElfFacts facts = read_elf_facts(patched.path());
  ASSERT_EQ(facts.error, "");
  EXPECT_EQ(facts.unsearched_device_code_entries, 0u);
  ASSERT_TRUE(facts.device_code.has_value());
  EXPECT_EQ(facts.device_code->hip_targets, (Strings{"gfx90a", "gfx1030"}));
}

// A compressed clang offload bundle (hipcc --offload-compress) is not
// decompressed: KE012 counts it as not searched, and KE014 says its targets
// are not listed.
TEST(ElfReader, CompressedHipBundlesAreCountedAsNotSearched) {
  const ElfFacts facts = read_elf_facts(elf_fixture("_hip_compressed_bundle.abi3.so"));
  ASSERT_EQ(facts.error, "");
  EXPECT_EQ(facts.unsearched_device_code_entries, 1u);
  EXPECT_EQ(facts.unsearched_device_code_section, ".hip_fatbin");
  EXPECT_EQ(facts.unsearched_device_code_reason,
            "a compressed clang offload bundle in .hip_fatbin (magic CCOB, hipcc --offload-compress), which kcheck "
            "does not decompress");
  ASSERT_TRUE(facts.device_code.has_value());
  EXPECT_EQ(facts.device_code->error, ".hip_fatbin holds a compressed offload bundle; its targets are not listed");
  const std::vector<std::string> messages = ke012_messages("_hip_compressed_bundle.abi3.so");
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], "1 compressed entry of its device code was not searched for build paths; the first: " +
                             facts.unsearched_device_code_reason);
}

// The same with nvcc's own compression of a -lineinfo build: every entry
// in zstd (--compress-mode=size), where the raw bytes show no path; the
// PTX alone in LZ4 (--compress-mode=speed), where they show it cut short;
// and -rdc, where the path is in the relocatable code of __nv_relfatbin.
TEST(ElfReader, LineTablesNvccCompressedAreFound) {
  for (const std::string fixture : {"_cuda_kernel_zstd_lineinfo.abi3.so", "_cuda_kernel_lz4_lineinfo.abi3.so",
                                    "_cuda_kernel_rdc_lineinfo.abi3.so"}) {
    SCOPED_TRACE(fixture);
    KCHECK_REQUIRE_FIXTURE(fixture);
    const ElfFacts facts = read_elf_facts(elf_fixture(fixture));
    EXPECT_EQ(facts.device_code_build_paths, Strings{"/home/builder/kernels/src/src/scale_kernel.cu"});
    EXPECT_EQ(facts.unsearched_device_code_entries, 0u);
    EXPECT_EQ(facts.unsearched_device_code_reason, "");
    EXPECT_EQ(read_bytes(elf_fixture(fixture)).find("src/src/scale_kernel.cu"), std::string::npos)
        << "the path is not in the file's raw bytes";
    const std::vector<std::string> messages = ke012_messages(fixture);
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_NE(messages[0].find("in its device code"), std::string::npos) << messages[0];
  }
}

// Each optional table is read when asked and left unread, and said to be,
// when not: the fixtures below have facts in every one of them.
TEST(ElfReader, EachOptionalTableIsReadOnlyWhenAsked) {
  const ElfFacts registrations = read_elf_facts(elf_fixture("_torch_registrations.abi3.so"));
  EXPECT_FALSE(registrations.torch_library_namespaces.empty());
  const ElfFacts without_namespaces =
      read_elf_facts(elf_fixture("_torch_registrations.abi3.so"), ElfTables{.torch_library_namespaces = false});
  EXPECT_TRUE(without_namespaces.torch_library_namespaces.empty());
  EXPECT_FALSE(without_namespaces.tables_read.torch_library_namespaces);
  EXPECT_EQ(without_namespaces.exports.size(), registrations.exports.size());  // the dynamic symbols still are

  EXPECT_TRUE(read_elf_facts(elf_fixture("_cuda_kernel.abi3.so")).device_code.has_value());
  const ElfFacts without_device_code =
      read_elf_facts(elf_fixture("_cuda_kernel.abi3.so"), ElfTables{.device_code = false});
  EXPECT_FALSE(without_device_code.device_code.has_value());
  EXPECT_FALSE(without_device_code.tables_read.device_code);

  EXPECT_FALSE(read_elf_facts(elf_fixture("_debug_leak.abi3.so")).leaked_build_paths.empty());
  const ElfFacts without_leaks = read_elf_facts(elf_fixture("_debug_leak.abi3.so"), ElfTables{.build_leaks = false});
  EXPECT_TRUE(without_leaks.leaked_build_paths.empty());
  EXPECT_FALSE(without_leaks.has_debug_sections);
  EXPECT_FALSE(without_leaks.tables_read.build_leaks);
}

TEST(ElfTables, CoverWhatWasReadAndNothingMore) {
  EXPECT_TRUE(ElfTables{}.covers(ElfTables{}));
  EXPECT_TRUE(ElfTables{}.covers(kNoOptionalElfTables));
  EXPECT_TRUE(kNoOptionalElfTables.covers(kNoOptionalElfTables));
  EXPECT_FALSE(kNoOptionalElfTables.covers(ElfTables{}));
  EXPECT_FALSE((ElfTables{.device_code = false}).covers(ElfTables{}));
  EXPECT_TRUE((ElfTables{.device_code = false}).covers(ElfTables{.read_only_data = false, .device_code = false}));
}

TEST(ElfReaderMalformed, GitLfsPointerIsNamed) {
  const ScratchFile pointer(
      "version https://git-lfs.github.com/spec/v1\n"
      "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
      "size 12345\n");
  const std::string error = read_elf_facts(pointer.path()).error;
  EXPECT_NE(error.find("Git LFS pointer"), std::string::npos) << error;
  EXPECT_NE(error.find("git lfs pull"), std::string::npos) << error;
  const Findings findings = run_native_rules(
      tree_with_module(pointer.path(), "torch213-cxx11-cpu-x86_64-linux", "_k.abi3.so"), load_policy("hub"));
  ASSERT_EQ(codes_of(findings), Strings{"KE007"});
  EXPECT_NE(findings[0].message.find("Git LFS pointer"), std::string::npos) << findings[0].message;
}

TEST(ElfReaderMalformed, WrongMagic) {
  const ScratchFile file("MZ this is not an ELF file at all.....................................");
  EXPECT_EQ(read_elf_facts(file.path()).error, "not an ELF file (wrong magic)");
}

TEST(ElfReaderMalformed, EmptyAndMissingFiles) {
  const ScratchFile empty("");
  EXPECT_EQ(read_elf_facts(empty.path()).error, "not an ELF file (wrong magic)");
  EXPECT_NE(read_elf_facts("/nonexistent/kcheck.so").error.find("cannot open"), std::string::npos);
}

TEST(ElfReaderMalformed, TruncatedFileNamesTheSectionHeaderTable) {
  const std::string bytes = read_bytes(elf_fixture("_clean.abi3.so"));
  const ScratchFile file(bytes.substr(0, bytes.size() / 2));
  const std::string error = read_elf_facts(file.path()).error;
  EXPECT_TRUE(error.starts_with("truncated: section header table")) << error;
}

TEST(ElfReaderMalformed, SectionHeaderOffsetPastTheEnd) {
  std::string bytes = read_bytes(elf_fixture("_clean.abi3.so"));
  put_u64(bytes, 40, 0x7fffffffffffff00ULL);  // e_shoff
  const ScratchFile file(bytes);
  EXPECT_TRUE(read_elf_facts(file.path()).error.starts_with("truncated: section header table"))
      << read_elf_facts(file.path()).error;
}

TEST(ElfReaderMalformed, SectionNameTableIndexOutOfRange) {
  std::string bytes = read_bytes(elf_fixture("_clean.abi3.so"));
  put_u16(bytes, 62, 0xfff0);  // e_shstrndx
  const ScratchFile file(bytes);
  EXPECT_TRUE(read_elf_facts(file.path()).error.starts_with("section name table index"))
      << read_elf_facts(file.path()).error;
}

TEST(ElfReaderMalformed, KE007NamesTheFileAndTheReason) {
  const std::string bytes = read_bytes(elf_fixture("_clean.abi3.so"));
  const ScratchFile file(bytes.substr(0, 200));
  const auto tree = tree_with_module(file.path(), "torch213-cxx11-cpu-x86_64-linux", "_clean.abi3.so");
  const Findings findings = run_native_rules(tree, load_policy("hub"));
  ASSERT_EQ(codes_of(findings), Strings{"KE007"});
  EXPECT_EQ(findings[0].file, "build/torch213-cxx11-cpu-x86_64-linux/_clean.abi3.so");
  EXPECT_NE(findings[0].message.find("truncated"), std::string::npos) << findings[0].message;
}

// Every prefix and thousands of random byte changes of real fixtures: the
// reader must return (with or without an error), never crash or hang.
// Every truncation of a fixture and 300 random corruptions of its headers
// and tables: the reader returns (no crash, no sanitizer report) and says
// what is wrong. A truncated file lacks the section headers at its end (where
// the linkers put them), so each truncation is an error; each corrupted copy
// is read as an error or as facts that stay within the file.
class DamagedElfFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(DamagedElfFixture, ReportsTruncationAndSurvivesCorruption) {
  const std::string fixture = GetParam();
  KCHECK_REQUIRE_FIXTURE(fixture);
  const std::string original = read_bytes(elf_fixture(fixture));
  ASSERT_EQ(read_elf_facts(elf_fixture(fixture)).error, "");
  for (std::size_t length = 0; length < original.size(); length += 1 + length / 8) {
    const ScratchFile file(original.substr(0, length));
    EXPECT_NE(read_elf_facts(file.path()).error, "")
        << "truncated to " << length << " of " << original.size() << " bytes";
  }
  std::mt19937 random(20261122);
  int errors = 0;
  for (int round = 0; round < 300; ++round) {
    std::string bytes = original;
    // Concentrate changes on the headers and tables where offsets live.
    for (int change = 0; change < 8; ++change) {
      const std::size_t at =
          random() % 2 ? random() % std::min<std::size_t>(bytes.size(), 4096) : random() % bytes.size();
      bytes[at] = static_cast<char>(random());
    }
    const ScratchFile file(bytes);
    const ElfFacts facts = read_elf_facts(file.path());
    if (!facts.error.empty()) {
      ++errors;
      continue;
    }
    std::size_t text = 0;  // every name read comes from the file's bytes
    for (const std::string& needed : facts.needed) text += needed.size();
    for (const ElfImportedSymbol& symbol : facts.imports) text += symbol.name.size();
    for (const ElfExportedSymbol& symbol : facts.exports) text += symbol.name.size();
    EXPECT_LE(text, bytes.size()) << "round " << round;
  }
  EXPECT_GT(errors, 0) << "no corrupted copy was read as an error";
}

// Every ELF fixture tests/elf/fixtures.cmake declares (KCHECK_ELF_FIXTURE_NAMES),
// so a new one is damaged too without being named here.
std::vector<std::string> every_elf_fixture() {
  std::vector<std::string> names;
  std::string_view list = KCHECK_ELF_FIXTURE_NAMES;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (comma != 0) names.emplace_back(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return names;
}

TEST(ElfFixtureList, NamesEveryElfFixtureOnce) {
  const std::vector<std::string> names = every_elf_fixture();
  for (const char* fixture : {"_clean.abi3.so", "_torch_registrations.abi3.so", "_cuda_kernel.abi3.so",
                              "_hip_kernel.abi3.so", "_foreign.abi3.so", "_program.abi3.so", "_debug_leak.abi3.so"})
    EXPECT_EQ(std::count(names.begin(), names.end(), fixture), 1) << fixture << " (built or not, it is listed)";
  for (const std::string& name : names) EXPECT_FALSE(name.starts_with("_macho")) << name << " is no ELF file";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DamagedElfFixture, ::testing::ValuesIn(every_elf_fixture()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name;
                           for (const char c : info.param)
                             if (std::isalnum(static_cast<unsigned char>(c))) name += c;
                           return name;
                         });

}  // namespace
}  // namespace kcheck::testing
