// The unique part of a variant id (unique_id.h, build-variants.md §3.2): the
// git tree of the kernel directory when it is committed, so the same source
// always gets the same op namespace and another source another one; random
// material otherwise.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "checker/builder/unique_id.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

const std::string kBase32 = "abcdefghijklmnopqrstuvwxyz234567";

TEST(RandomBase32Id, ThirteenLowercaseBase32CharactersFreshEachTime) {
  std::set<std::string> seen;
  for (int i = 0; i < 20; ++i) {
    const std::string id = random_base32_id();
    ASSERT_EQ(id.size(), 13u) << id;
    EXPECT_EQ(id.find_first_not_of(kBase32), std::string::npos) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 20u) << "64 random bits never repeat in 20 draws";
}

class UniqueMaterialInGit : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("git --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no git on PATH";
    repository_ = fs::path(::testing::TempDir()) /
                  ("kcheck-unique-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(repository_);
    fs::create_directories(repository_);
    git("init -q");
  }

  void write(const std::string& relative, const std::string& text) {
    fs::create_directories((repository_ / relative).parent_path());
    std::ofstream(repository_ / relative, std::ios::binary) << text;
  }

  void git(const std::string& arguments) {
    const std::string command = "git -C '" + repository_.string() +
                                "' -c user.name=kcheck -c user.email=kcheck@example.invalid -c commit.gpgsign=false " +
                                arguments + " >/dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }

  std::string git_output(const std::string& arguments) {
    const fs::path out = repository_.parent_path() / (repository_.filename().string() + ".out");
    const std::string command = "git -C '" + repository_.string() + "' " + arguments + " >'" + out.string() + "'";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    std::ifstream in(out);
    std::string line;
    std::getline(in, line);
    return line;
  }

  void commit_all() {
    git("add -A");
    git("commit -q -m change");
  }

  fs::path repository_;
};

TEST_F(UniqueMaterialInGit, ACommittedKernelGetsItsTreeHashAndTheCommit) {
  write("kernels/toy/build.toml", "[general]\nname = \"toy\"\n");
  write("kernels/toy/torch-ext/toy/__init__.py", "x = 1\n");
  commit_all();
  const UniqueMaterial material = unique_material_for(repository_ / "kernels" / "toy");
  EXPECT_EQ(material.source, "git tree");
  EXPECT_EQ(material.unique, git_output("rev-parse HEAD:kernels/toy").substr(0, 7))
      << "the tree of the kernel directory, not of the repository";
  EXPECT_EQ(material.commit, git_output("rev-parse HEAD"));
  EXPECT_FALSE(material.dirty);
}

TEST_F(UniqueMaterialInGit, TheSameSourceGetsTheSameIdAndAnotherSourceAnother) {
  write("a/build.toml", "name = \"a\"\n");
  write("b/build.toml", "name = \"b\"\n");
  write("c/build.toml", "name = \"a\"\n");  // the same content as a/
  commit_all();
  const std::string a = unique_material_for(repository_ / "a").unique;
  EXPECT_EQ(unique_material_for(repository_ / "a").unique, a) << "deterministic";
  EXPECT_NE(unique_material_for(repository_ / "b").unique, a) << "another source, another namespace";
  EXPECT_EQ(unique_material_for(repository_ / "c").unique, a) << "the id follows the content, not the place";

  write("unrelated/file.txt", "changes outside the kernel directory\n");
  commit_all();
  EXPECT_EQ(unique_material_for(repository_ / "a").unique, a) << "a commit elsewhere leaves the id alone";
  write("a/build.toml", "name = \"a2\"\n");
  commit_all();
  EXPECT_NE(unique_material_for(repository_ / "a").unique, a) << "a committed change gives a new id";
}

TEST_F(UniqueMaterialInGit, UncommittedChangesToTrackedFilesMarkTheIdDirty) {
  write("toy/build.toml", "name = \"toy\"\n");
  commit_all();
  const std::string clean = unique_material_for(repository_ / "toy").unique;

  write("toy/untracked.py", "y = 2\n");
  EXPECT_FALSE(unique_material_for(repository_ / "toy").dirty) << "untracked files do not count";
  write("elsewhere.txt", "tracked elsewhere\n");
  git("add elsewhere.txt");
  EXPECT_FALSE(unique_material_for(repository_ / "toy").dirty) << "changes outside the kernel do not count";

  write("toy/build.toml", "name = \"changed\"\n");
  const UniqueMaterial dirty = unique_material_for(repository_ / "toy");
  EXPECT_TRUE(dirty.dirty);
  EXPECT_EQ(dirty.unique, clean + "_dirty");
  EXPECT_EQ(dirty.source, "git tree");
}

TEST(UniqueMaterial, OutsideGitTheMaterialIsRandom) {
  const fs::path dir = fs::temp_directory_path() / "kcheck-unique-not-in-git";
  fs::remove_all(dir);
  fs::create_directories(dir);
  if (std::system(("git -C '" + dir.string() + "' rev-parse --git-dir >/dev/null 2>&1").c_str()) == 0)
    GTEST_SKIP() << dir << " lies inside a git repository";
  const UniqueMaterial first = unique_material_for(dir);
  const UniqueMaterial second = unique_material_for(dir);
  EXPECT_EQ(first.source, "random");
  EXPECT_EQ(first.commit, "");
  EXPECT_FALSE(first.dirty);
  ASSERT_EQ(first.unique.size(), 13u) << first.unique;
  EXPECT_EQ(first.unique.find_first_not_of(kBase32), std::string::npos) << first.unique;
  EXPECT_NE(first.unique, second.unique) << "no source to derive it from: each build gets its own";
}

}  // namespace
}  // namespace kcheck
