// ContentFactsCache on its own: the path index, and the fact encoding.
#include <chrono>

#include "checker/elf/elf_facts.h"
#include "checker/python/python_facts.h"
#include "checker/scan/analyser_build_id.h"
#include "checker/scan/fact_codec.h"
#include "checker/scan/facts_cache.h"
#include "tests/scan/scan_test_support.h"

namespace kcheck::scan_test {
namespace {

FileEntry entry_for(const fs::path& path, const std::string& relative) {
  FileEntry entry;
  entry.relative_path = relative;
  entry.path = path;
  return entry;
}

TEST(PathIndex, AnUnchangedFileIsNotHashedAgainAndAChangedOneIs) {
  const fs::path dir = scratch_dir();
  const fs::path file = dir / "module.py";
  append_to_file(file, "x = 1\n");
  const FileEntry entry = entry_for(file, "module.py");
  const auto no_racy_window = std::chrono::nanoseconds(0);
  std::optional<std::string> first;
  {
    ContentFactsCache cache(dir / "cache", "context", no_racy_window);
    first = cache.content_sha256(entry);
    EXPECT_EQ(cache.stats().files_hashed, 1u);
    EXPECT_EQ(cache.content_sha256(entry), first) << "asked twice in one scan: hashed once";
    EXPECT_EQ(cache.stats().files_hashed, 1u);
  }
  {
    ContentFactsCache cache(dir / "cache", "context", no_racy_window);
    EXPECT_EQ(cache.content_sha256(entry), first);
    EXPECT_EQ(cache.stats().files_hashed, 0u);
    EXPECT_EQ(cache.stats().hashes_reused, 1u);
  }
  append_to_file(file, "y = 2\n");
  {
    ContentFactsCache cache(dir / "cache", "context", no_racy_window);
    const std::optional<std::string> changed = cache.content_sha256(entry);
    EXPECT_EQ(cache.stats().files_hashed, 1u);
    ASSERT_TRUE(changed);
    EXPECT_NE(changed, first);
  }
}

TEST(PathIndex, AFreshlyChangedFileIsNotIndexed) {
  const fs::path dir = scratch_dir();
  const fs::path file = dir / "module.py";
  append_to_file(file, "x = 1\n");
  const FileEntry entry = entry_for(file, "module.py");
  ContentFactsCache(dir / "cache", "context", std::chrono::hours(1)).content_sha256(entry);
  ContentFactsCache again(dir / "cache", "context", std::chrono::hours(1));
  again.content_sha256(entry);
  EXPECT_EQ(again.stats().files_hashed, 1u) << "a file changed within the racy window is hashed every time";
}

TEST(FactsCache, FactsAreKeyedByContentContextAndPath) {
  const fs::path dir = scratch_dir();
  append_to_file(dir / "a.py", "import os\n");
  const FileEntry entry = entry_for(dir / "a.py", "a.py");
  const PythonFileFacts facts = analyse_python_source("import os\n", "a.py");
  ContentFactsCache(dir / "cache", "kcheck 1 policy hub").store_python(entry, facts);
  EXPECT_TRUE(ContentFactsCache(dir / "cache", "kcheck 1 policy hub").load_python(entry));
  EXPECT_FALSE(ContentFactsCache(dir / "cache", "kcheck 1 policy hub-legacy").load_python(entry))
      << "another policy (or kcheck version) is another key";
  EXPECT_FALSE(ContentFactsCache(dir / "cache", "kcheck 1 policy hub").load_native(entry)) << "another kind";
  EXPECT_FALSE(ContentFactsCache(dir / "cache", "kcheck 1 policy hub").load_python(entry_for(dir / "a.py", "b.py")))
      << "another relative path";
}

TEST(FactCodec, NativeFactsRoundTripAndEveryTruncationIsRejected) {
  std::optional<fs::path> so;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(fixture("ke009_default_visibility_export")))
    if (entry.path().extension() == ".so") so = entry.path();
  ASSERT_TRUE(so);
  NativeModuleFacts facts;
  facts.relative_path = so->filename().string();
  facts.elf = read_elf_facts(*so);
  ASSERT_FALSE(facts.elf->exports.empty());
  const std::string bytes = encode_native_facts(facts);
  const std::optional<NativeModuleFacts> decoded = decode_native_facts(bytes);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(encode_native_facts(*decoded), bytes);
  EXPECT_EQ(decoded->elf->exports.size(), facts.elf->exports.size());
  EXPECT_EQ(decoded->elf->torch_library_namespaces, facts.elf->torch_library_namespaces);
  for (std::size_t size = 0; size < bytes.size(); ++size)
    EXPECT_FALSE(decode_native_facts(std::string_view(bytes).substr(0, size))) << size;
  EXPECT_FALSE(decode_native_facts(bytes + "x")) << "trailing bytes";
}

TEST(FactCodec, PythonFactsRoundTrip) {
  const std::string source =
      "from __future__ import annotations\nimport torch\nfrom . import _ops as ops\n__all__ = ['f']\n"
      "class Layer(torch.nn.Module):\n    has_backward = True\n    def forward(self, x: int | None):\n"
      "        return torch.ops._relu_cpu_0a1b2c3.relu(x)\n@torch.library.custom_op('x::y')\ndef f(): eval('1')\n";
  const PythonFileFacts facts = analyse_python_source(source, "relu/__init__.py");
  const std::string bytes = encode_python_facts(facts);
  const std::optional<PythonFileFacts> decoded = decode_python_facts(bytes);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(encode_python_facts(*decoded), bytes);
  EXPECT_EQ(decoded->imports.size(), facts.imports.size());
  EXPECT_EQ(decoded->calls.size(), facts.calls.size());
  EXPECT_EQ(decoded->all_names, facts.all_names);
}

// The entry files under DIR/facts, in no particular order.
std::vector<fs::path> facts_entries(const fs::path& cache) {
  std::vector<fs::path> entries;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(cache / "facts"))
    if (entry.is_regular_file()) entries.push_back(entry.path());
  return entries;
}

TEST(FactsCache, APlantedOversizedEntryIsAMissAndIsNotRead) {
  const fs::path dir = scratch_dir();
  append_to_file(dir / "a.py", "import os\n");
  const FileEntry entry = entry_for(dir / "a.py", "a.py");
  ContentFactsCache(dir / "cache", "context").store_python(entry, analyse_python_source("import os\n", "a.py"));
  const std::vector<fs::path> entries = facts_entries(dir / "cache");
  ASSERT_EQ(entries.size(), 1u);
  // Its own header, then 40 MB (sparse): the size alone refuses it.
  fs::resize_file(entries[0], std::uint64_t{40} << 20);
  ContentFactsCache cache(dir / "cache", "context");
  EXPECT_FALSE(cache.load_python(entry));
  EXPECT_EQ(cache.stats().entries_rejected, 1u);
  EXPECT_EQ(cache.stats().facts_reused, 0u);
}

TEST(FactsCache, AnEntryCopiedUnderAnotherKeyIsRejected) {
  const fs::path dir = scratch_dir();
  append_to_file(dir / "a.py", "import os\n");
  append_to_file(dir / "b.py", "import sys\n");
  const FileEntry a = entry_for(dir / "a.py", "a.py"), b = entry_for(dir / "b.py", "b.py");
  ContentFactsCache(dir / "cache", "context").store_python(a, analyse_python_source("import os\n", "a.py"));
  const fs::path a_entry = facts_entries(dir / "cache").at(0);
  ContentFactsCache(dir / "cache", "context").store_python(b, analyse_python_source("import sys\n", "b.py"));
  std::vector<fs::path> entries = facts_entries(dir / "cache");
  ASSERT_EQ(entries.size(), 2u);
  const fs::path b_entry = entries[0] == a_entry ? entries[1] : entries[0];
  {
    ContentFactsCache cache(dir / "cache", "context");
    EXPECT_TRUE(cache.load_python(b)) << "b's own entry is read";
  }
  fs::copy_file(a_entry, b_entry, fs::copy_options::overwrite_existing);  // a's facts passed off as b's
  ContentFactsCache cache(dir / "cache", "context");
  EXPECT_FALSE(cache.load_python(b));
  EXPECT_EQ(cache.stats().entries_rejected, 1u);
  EXPECT_TRUE(cache.load_python(a)) << "a's entry is still a's";
}

TEST(FactsCache, FactsOfAnotherAnalyserBuildAreAMiss) {
  const fs::path dir = scratch_dir();
  append_to_file(dir / "a.py", "import os\n");
  const FileEntry entry = entry_for(dir / "a.py", "a.py");
  const std::string context = cache_context(load_policy("hub"));
  const std::string build_id(analyser_build_id());
  ASSERT_EQ(build_id.size(), 64u);
  EXPECT_EQ(build_id.find_first_not_of("0123456789abcdef"), std::string::npos) << build_id;
  ASSERT_NE(context.find("build " + build_id), std::string::npos) << context;
  std::string other_build = context;
  other_build.replace(context.find(build_id), build_id.size(), std::string(64, '0'));
  ContentFactsCache(dir / "cache", other_build).store_python(entry, analyse_python_source("import os\n", "a.py"));
  ContentFactsCache cache(dir / "cache", context);
  EXPECT_FALSE(cache.load_python(entry));
  EXPECT_EQ(cache.stats().entries_rejected, 0u) << "another key: not even looked at";
}

TEST(FactCodec, ASequenceClaimingMoreItemsThanItsBytesCanHoldIsRejected) {
  // Empty facts, then the import count patched to one item per remaining
  // byte: each PythonImport takes far more than a byte, so the count alone
  // is proof of a forged entry (before this check, decoding allocated the
  // claimed items first: a 40 MB entry took gigabytes).
  std::string bytes = encode_python_facts(PythonFileFacts{});
  const std::size_t imports_count = 8 + 1 + 8 + 8;  // relative_path, parsed, parse_error, parse_error_line
  bytes.append(std::size_t{1} << 20, '\0');
  const std::uint64_t claimed = bytes.size() - imports_count - 8;
  for (int i = 0; i < 8; ++i) bytes[imports_count + i] = static_cast<char>((claimed >> (8 * i)) & 0xff);
  EXPECT_FALSE(decode_python_facts(bytes));
}

}  // namespace
}  // namespace kcheck::scan_test
