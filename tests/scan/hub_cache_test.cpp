// Hub ids on the command line and where the Hugging Face cache is (issue #29);
// the cache itself is read in tests/integrations/hub_cache_test.py, beside
// huggingface_hub's own reader.
#include "checker/scan/hub_cache.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "tests/scan/scan_test_support.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;
using scan_test::scratch_dir;

TEST(HubReference, OrgNameAndAnOptionalRevision) {
  const auto plain = parse_hub_reference("kernels-community/activation");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->repo_id, "kernels-community/activation");
  EXPECT_EQ(plain->revision, "main");
  const auto versioned = parse_hub_reference("kernels-community/activation@v1");
  ASSERT_TRUE(versioned);
  EXPECT_EQ(versioned->revision, "v1");
  EXPECT_EQ(parse_hub_reference("org/name@refs/pr/3")->revision, "refs/pr/3");
  for (const char* not_an_id : {"activation", "./org/name", "org/name/extra", "/abs/path", "org/", "/name", "org/.x",
                                "org/name@", "org/name@../../etc", "org/na me", "org/name@/x"})
    EXPECT_FALSE(parse_hub_reference(not_an_id)) << not_an_id;
}

const std::map<std::string, std::string>* environment = nullptr;
const char* variable(const char* name) {
  auto found = environment->find(name);
  return found == environment->end() ? nullptr : found->second.c_str();
}

TEST(HubCacheDirectory, AsTheKernelsLoaderAndHuggingfaceHubFindIt) {
  const std::map<std::string, std::string> kernels = {{"KERNELS_CACHE", "/kernels"}, {"HF_HUB_CACHE", "/hub"}};
  environment = &kernels;
  EXPECT_EQ(hub_cache_directory(variable), "/kernels") << "the kernels loader's own cache first";
  const std::map<std::string, std::string> all = {
      {"HF_HUB_CACHE", "/hub"}, {"HF_HOME", "/hf"}, {"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/home/u"}};
  environment = &all;
  EXPECT_EQ(hub_cache_directory(variable), "/hub");
  const std::map<std::string, std::string> home = {{"HF_HOME", "/hf"}, {"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/h"}};
  environment = &home;
  EXPECT_EQ(hub_cache_directory(variable), "/hf/hub");
  const std::map<std::string, std::string> xdg = {{"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/h"}};
  environment = &xdg;
  EXPECT_EQ(hub_cache_directory(variable), "/xdg/huggingface/hub");
  const std::map<std::string, std::string> bare = {{"HOME", "/h"}};
  environment = &bare;
  EXPECT_EQ(hub_cache_directory(variable), "/h/.cache/huggingface/hub");
}

// A snapshot as huggingface_hub lays it out: files are links into blobs/.
HubSnapshot cached_snapshot(const fs::path& cache, const std::map<std::string, std::string>& files) {
  const std::string commit(40, 'a');
  HubSnapshot snapshot{cache / "kernels--org--name", cache / "kernels--org--name" / "snapshots" / commit, commit, ""};
  fs::create_directories(snapshot.repository / "blobs");
  int blob = 0;
  for (const auto& [name, content] : files) {
    const fs::path blob_path = snapshot.repository / "blobs" / ("blob" + std::to_string(blob++));
    std::ofstream(blob_path, std::ios::binary) << content;
    fs::create_directories((snapshot.snapshot / name).parent_path());
    fs::create_symlink(blob_path, snapshot.snapshot / name);
  }
  return snapshot;
}

// The copy is bounded by the audit's own limits (--max-file-size,
// --max-files, --max-depth): a large file costs no disk and no time.
TEST(MaterialiseSnapshot, WithinTheAuditsLimits) {
  const fs::path scratch = scratch_dir();
  const HubSnapshot snapshot = cached_snapshot(
      scratch / "cache", {{"build/v/small.py", "x = 1\n"}, {"build/v/large.so", std::string(4096, 'E')}});
  WalkLimits limits;
  limits.max_file_size = 100;
  const fs::path copy = materialise_snapshot(snapshot, scratch / "copy", limits);
  EXPECT_EQ(fs::file_size(copy / "build/v/large.so"), 4096u) << "judged by its size";
  std::ifstream large(copy / "build/v/large.so", std::ios::binary);
  EXPECT_EQ(large.get(), 0) << "a sparse stand-in, its bytes never copied";
  std::ifstream small(copy / "build/v/small.py");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(small), {}), "x = 1\n");

  limits.max_entries = 3;  // build, build/v and two files
  try {
    materialise_snapshot(snapshot, scratch / "too-many", limits);
    ADD_FAILURE() << "a snapshot past --max-files was copied";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("more than 3 entries (--max-files)"), std::string::npos) << error.what();
  }
  limits = WalkLimits{};
  limits.max_depth = 1;
  EXPECT_THROW(materialise_snapshot(snapshot, scratch / "too-deep", limits), std::runtime_error);
}

}  // namespace
}  // namespace kcheck
