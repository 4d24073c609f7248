// read_bounded_file and is_inside (checker/support/bounded_read.h): the one way
// kcheck reads a whole untrusted text file, and the path containment test.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "checker/support/bounded_read.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

class BoundedRead : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("kcheck-bounded-read-" + std::to_string(::getpid()));
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }
  fs::path write(const std::string& name, const std::string& content) {
    const fs::path file = directory_ / name;
    std::ofstream(file, std::ios::binary) << content;
    return file;
  }
  fs::path directory_;
};

TEST_F(BoundedRead, ReadsAWholeFileWithinTheBound) {
  std::string error;
  const std::string content("a\0b\nlast", 9);
  EXPECT_EQ(read_bounded_file(write("f", content), 9, error), content);
  EXPECT_EQ(error, "");
  EXPECT_EQ(read_bounded_file(write("empty", ""), 0, error), "");
}

TEST_F(BoundedRead, RefusesAFileAboveTheBoundSayingBothSizes) {
  std::string error;
  EXPECT_EQ(read_bounded_file(write("f", "0123456789"), 9, error), std::nullopt);
  EXPECT_EQ(error, "10 bytes, above the bound of 9 bytes");
}

TEST_F(BoundedRead, RefusesAFifoWithoutBlocking) {
  const fs::path fifo = directory_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string error;
  EXPECT_EQ(read_bounded_file(fifo, 1024, error), std::nullopt);  // would hang forever if it blocked
  EXPECT_EQ(error, "not a regular file");
}

TEST_F(BoundedRead, RefusesADirectoryAndAMissingFile) {
  std::string error;
  EXPECT_EQ(read_bounded_file(directory_, 1024, error), std::nullopt);
  EXPECT_EQ(error, "not a regular file");
  EXPECT_EQ(read_bounded_file(directory_ / "missing", 1024, error), std::nullopt);
  EXPECT_EQ(error, "cannot open: No such file or directory");
}

TEST_F(BoundedRead, FollowsASymlinkToARegularFileAndRefusesOneToADevice) {
  const fs::path target = write("target", "text");
  fs::create_symlink(target, directory_ / "link");
  fs::create_symlink("/dev/zero", directory_ / "zero");
  std::string error;
  EXPECT_EQ(read_bounded_file(directory_ / "link", 16, error), "text");
  EXPECT_EQ(read_bounded_file(directory_ / "zero", 16, error), std::nullopt);
  EXPECT_EQ(error, "not a regular file");
}

TEST(IsInside, ComparesWholePathComponents) {
  EXPECT_TRUE(is_inside("/a/b", "/a/b"));
  EXPECT_TRUE(is_inside("/a/b/c/d", "/a/b"));
  EXPECT_FALSE(is_inside("/a/bc", "/a/b"));
  EXPECT_FALSE(is_inside("/a", "/a/b"));
  EXPECT_FALSE(is_inside("/x/a/b", "/a/b"));
  EXPECT_FALSE(is_inside("a/b", "/a/b")) << "a relative path is not inside an absolute root";
  EXPECT_TRUE(is_inside("build/x", "build"));
}

}  // namespace
}  // namespace kcheck
