// Hub ids on the command line and where the Hugging Face cache is (issue #29);
// the cache itself is read in tests/integrations/hub_cache_test.py, beside
// huggingface_hub's own reader.
#include "checker/scan/hub_cache.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace kcheck {
namespace {

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

}  // namespace
}  // namespace kcheck
