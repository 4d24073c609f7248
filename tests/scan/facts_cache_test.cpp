// The facts cache on its own: one repository's entry, and the fact encoding.
#include <chrono>

#include "checker/kinds/elf_facts.h"
#include "checker/kinds/python_facts.h"
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

// One scan's use of one repository's cache entry: read when made, used,
// saved; what the cache did.
template <typename Use>
FactsCacheStats one_scan(const fs::path& cache_dir, const std::string& context, Use use,
                         const std::string& repository = "owner/kernel",
                         std::chrono::nanoseconds racy_window = std::chrono::nanoseconds(0)) {
  FactsCacheDirectory directory(cache_dir, context, racy_window);
  RepositoryFactsCache cache(directory, repository);
  use(cache);
  cache.save();
  return directory.stats();
}

// a.py and b.py in `dir`, their facts recorded in the cache by one scan.
std::pair<FileEntry, FileEntry> two_files_recorded(const fs::path& dir) {
  append_to_file(dir / "a.py", "import os\n");
  append_to_file(dir / "b.py", "import sys\n");
  const FileEntry a = entry_for(dir / "a.py", "a.py"), b = entry_for(dir / "b.py", "b.py");
  one_scan(dir / "cache", "context", [&](RepositoryFactsCache& cache) {
    cache.store_python(a, analyse_python_source("import os\n", "a.py"));
    cache.store_python(b, analyse_python_source("import sys\n", "b.py"));
  });
  return {a, b};
}

TEST(RepositoryEntry, AnUnchangedFileIsNotHashedAgainAndAChangedOneIs) {
  const fs::path dir = scratch_dir();
  const fs::path file = dir / "module.py";
  append_to_file(file, "x = 1\n");
  const FileEntry entry = entry_for(file, "module.py");
  std::optional<std::string> first;
  FactsCacheStats stats = one_scan(dir / "cache", "context", [&](RepositoryFactsCache& cache) {
    first = cache.content_sha256(entry);
    EXPECT_EQ(cache.content_sha256(entry), first) << "asked twice in one scan: hashed once";
  });
  EXPECT_EQ(stats.files_hashed, 1u);
  stats = one_scan(dir / "cache", "context",
                   [&](RepositoryFactsCache& cache) { EXPECT_EQ(cache.content_sha256(entry), first); });
  EXPECT_EQ(stats.files_hashed, 0u);
  EXPECT_EQ(stats.hashes_reused, 1u);
  append_to_file(file, "y = 2\n");
  std::optional<std::string> changed;
  stats =
      one_scan(dir / "cache", "context", [&](RepositoryFactsCache& cache) { changed = cache.content_sha256(entry); });
  EXPECT_EQ(stats.files_hashed, 1u);
  ASSERT_TRUE(changed);
  EXPECT_NE(changed, first);
}

// A file changed within the racy window could change again without its
// stat showing it, after its analysis: its record keeps only its hash,
// which serves only after the content is hashed again and found the same;
// its facts are never kept.
TEST(RepositoryEntry, AFreshlyChangedFileKeepsOnlyItsHashCheckedByContent) {
  const fs::path dir = scratch_dir();
  append_to_file(dir / "module.py", "x = 1\n");
  const FileEntry entry = entry_for(dir / "module.py", "module.py");
  const auto racy = std::chrono::hours(1);
  std::optional<std::string> first;
  FactsCacheStats stats = one_scan(
      dir / "cache", "context",
      [&](RepositoryFactsCache& cache) {
        first = cache.content_sha256(entry);
        cache.store_python(entry, analyse_python_source("x = 1\n", "module.py"));
      },
      "owner/kernel", racy);
  EXPECT_EQ(stats.files_hashed, 1u);
  stats = one_scan(
      dir / "cache", "context",
      [&](RepositoryFactsCache& cache) {
        EXPECT_FALSE(cache.load_python(entry)) << "no facts are kept for a racy file";
        EXPECT_EQ(cache.content_sha256(entry), first);
      },
      "owner/kernel", racy);
  EXPECT_EQ(stats.files_hashed, 1u) << "the content check, and no second hash";
  EXPECT_EQ(stats.facts_reused, 0u);
}

TEST(RepositoryEntry, FactsAreKeyedByContextRepositoryAndPath) {
  const fs::path dir = scratch_dir();
  append_to_file(dir / "a.py", "import os\n");
  const FileEntry entry = entry_for(dir / "a.py", "a.py");
  const PythonFileFacts facts = analyse_python_source("import os\n", "a.py");
  one_scan(dir / "cache", "kcheck 1 policy hub",
           [&](RepositoryFactsCache& cache) { cache.store_python(entry, facts); });
  const auto loads = [&](const std::string& context, const std::string& repository, const FileEntry& file) {
    bool loaded = false;
    one_scan(
        dir / "cache", context, [&](RepositoryFactsCache& cache) { loaded = cache.load_python(file).has_value(); },
        repository);
    return loaded;
  };
  EXPECT_TRUE(loads("kcheck 1 policy hub", "owner/kernel", entry));
  EXPECT_FALSE(loads("kcheck 1 policy hub-legacy", "owner/kernel", entry))
      << "another policy (or kcheck version) is another key";
  EXPECT_FALSE(loads("kcheck 1 policy hub", "owner/other", entry)) << "another repository";
  EXPECT_FALSE(loads("kcheck 1 policy hub", "owner/kernel", entry_for(dir / "a.py", "b.py")))
      << "another relative path";
  bool native = true;
  one_scan(dir / "cache", "kcheck 1 policy hub",
           [&](RepositoryFactsCache& cache) { native = cache.load_native(entry).has_value(); });
  EXPECT_FALSE(native) << "another kind";
}

// The point of the packed entry: a repository costs one read and, when it
// changed, one write, whatever its number of files.
TEST(RepositoryEntry, OneEntryPerRepositoryWrittenOnlyWhenItChanged) {
  const fs::path dir = scratch_dir();
  std::vector<FileEntry> files;
  for (const std::string name : {"a.py", "b.py", "c.py"}) {
    append_to_file(dir / name, "import os\n");
    files.push_back(entry_for(dir / name, name));
  }
  const auto analyse_all = [&](RepositoryFactsCache& cache) {
    for (const FileEntry& file : files) {
      cache.content_sha256(file);
      if (!cache.load_python(file)) cache.store_python(file, analyse_python_source("import os\n", file.relative_path));
    }
  };
  FactsCacheStats stats = one_scan(dir / "cache", "context", analyse_all);
  EXPECT_EQ(stats.facts_analysed, 3u);
  EXPECT_EQ(stats.entries_written, 1u);
  std::size_t cache_files = 0;
  for (const auto& item : fs::recursive_directory_iterator(dir / "cache"))
    cache_files += item.is_regular_file() && item.path().filename() != "CACHEDIR.TAG";
  EXPECT_EQ(cache_files, 1u);
  stats = one_scan(dir / "cache", "context", analyse_all);
  EXPECT_EQ(stats.facts_reused, 3u);
  EXPECT_EQ(stats.hashes_reused, 3u);
  EXPECT_EQ(stats.entries_written, 0u) << "nothing changed: nothing written";
}

// A rescan holds each reused file's facts once (in the audit): the cache
// drops its encoding after handing the facts out, and reads it back from
// the entry on disk when another file's change makes it write the entry.
TEST(RepositoryEntry, FactsHandedOutAreWrittenBackWhenAnotherFileChanged) {
  const fs::path dir = scratch_dir();
  const auto recorded = two_files_recorded(dir);  // no structured binding: lambdas capture a and b
  const auto& a = recorded.first;
  const auto& b = recorded.second;
  append_to_file(dir / "b.py", "import json\n");
  const FactsCacheStats stats = one_scan(dir / "cache", "context", [&](RepositoryFactsCache& cache) {
    EXPECT_TRUE(cache.load_python(a));
    EXPECT_FALSE(cache.load_python(b)) << "b changed";
    cache.store_python(b, analyse_python_source("import sys\nimport json\n", "b.py"));
  });
  EXPECT_EQ(stats.entries_written, 1u);
  one_scan(dir / "cache", "context", [&](RepositoryFactsCache& cache) {
    const std::optional<PythonFileFacts> facts = cache.load_python(a);
    ASSERT_TRUE(facts) << "a's facts were read back from the old entry and written again";
    EXPECT_EQ(facts->imports.size(), 1u);
    const std::optional<PythonFileFacts> changed = cache.load_python(b);
    ASSERT_TRUE(changed);
    EXPECT_EQ(changed->imports.size(), 2u);
  });
}

TEST(RepositoryEntry, RecordsOfFilesNoLongerAuditedLeaveTheEntry) {
  const fs::path dir = scratch_dir();
  const auto recorded = two_files_recorded(dir);  // no structured binding: lambdas capture a and b
  const auto& a = recorded.first;
  const auto& b = recorded.second;
  EXPECT_EQ(one_scan(dir / "cache", "context", [&](RepositoryFactsCache& cache) { EXPECT_TRUE(cache.load_python(a)); })
                .entries_written,
            1u);
  one_scan(dir / "cache", "context", [&](RepositoryFactsCache& cache) { EXPECT_FALSE(cache.load_python(b)); });
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
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(cache / "repositories"))
    if (entry.is_regular_file()) entries.push_back(entry.path());
  return entries;
}

TEST(RepositoryEntry, APlantedOversizedEntryIsAMissAndIsNotRead) {
  const fs::path dir = scratch_dir();
  append_to_file(dir / "a.py", "import os\n");
  const FileEntry entry = entry_for(dir / "a.py", "a.py");
  one_scan(dir / "cache", "context", [&](RepositoryFactsCache& cache) {
    cache.store_python(entry, analyse_python_source("import os\n", "a.py"));
  });
  const std::vector<fs::path> entries = facts_entries(dir / "cache");
  ASSERT_EQ(entries.size(), 1u);
  // Its own header, then 40 MB (sparse): the size alone refuses it.
  fs::resize_file(entries[0], std::uint64_t{40} << 20);
  const FactsCacheStats stats =
      one_scan(dir / "cache", "context", [&](RepositoryFactsCache& cache) { EXPECT_FALSE(cache.load_python(entry)); });
  EXPECT_EQ(stats.entries_rejected, 1u);
  EXPECT_EQ(stats.facts_reused, 0u);
}

TEST(RepositoryEntry, AnEntryCopiedUnderAnotherKeyIsRejected) {
  const fs::path dir = scratch_dir();
  append_to_file(dir / "a.py", "import os\n");
  const FileEntry a = entry_for(dir / "a.py", "a.py");
  one_scan(
      dir / "cache", "context",
      [&](RepositoryFactsCache& cache) { cache.store_python(a, analyse_python_source("import os\n", "a.py")); },
      "owner/one");
  const fs::path one_entry = facts_entries(dir / "cache").at(0);
  one_scan(
      dir / "cache", "context",
      [&](RepositoryFactsCache& cache) { cache.store_python(a, analyse_python_source("import os\n", "a.py")); },
      "owner/two");
  const std::vector<fs::path> entries = facts_entries(dir / "cache");
  ASSERT_EQ(entries.size(), 2u);
  const fs::path two_entry = entries[0] == one_entry ? entries[1] : entries[0];
  fs::copy_file(one_entry, two_entry, fs::copy_options::overwrite_existing);  // one's records passed off as two's
  const FactsCacheStats stats = one_scan(
      dir / "cache", "context", [&](RepositoryFactsCache& cache) { EXPECT_FALSE(cache.load_python(a)); }, "owner/two");
  EXPECT_EQ(stats.entries_rejected, 1u);
  one_scan(
      dir / "cache", "context", [&](RepositoryFactsCache& cache) { EXPECT_TRUE(cache.load_python(a)); }, "owner/one");
}

TEST(RepositoryEntry, FactsOfAnotherAnalyserBuildAreAMiss) {
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
  one_scan(dir / "cache", other_build, [&](RepositoryFactsCache& cache) {
    cache.store_python(entry, analyse_python_source("import os\n", "a.py"));
  });
  const FactsCacheStats stats =
      one_scan(dir / "cache", context, [&](RepositoryFactsCache& cache) { EXPECT_FALSE(cache.load_python(entry)); });
  EXPECT_EQ(stats.entries_rejected, 0u) << "another key: not even looked at";
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
