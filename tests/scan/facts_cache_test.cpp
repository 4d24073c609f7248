// ContentFactsCache on its own: the path index, and the fact encoding.
#include <chrono>

#include "checker/elf/elf_facts.h"
#include "checker/python/python_facts.h"
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

}  // namespace
}  // namespace kcheck::scan_test
