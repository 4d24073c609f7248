// ChunkedSourcePathScan: the builder paths KE012 finds in text that arrives
// in chunks are those it finds in the whole text at once, wherever the
// chunks are cut: through a path, just before or after a separator, at a
// chunk's first or last byte, into chunks of one byte.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "checker/elf/elf_readers.h"

namespace kcheck::testing {
namespace {

using Strings = std::vector<std::string>;

Strings found_in_chunks(std::string_view text, const std::vector<std::size_t>& cuts) {
  Strings paths;
  ChunkedSourcePathScan scan(paths);
  std::size_t from = 0;
  for (const std::size_t cut : cuts) {
    scan.add(text.substr(from, cut - from));
    from = cut;
  }
  scan.add(text.substr(from));
  scan.finish();
  return paths;
}

Strings found_whole(std::string_view text) { return found_in_chunks(text, {}); }

// PTX-like text: separators, other slashes and absolute paths, and builder
// paths of sources (found) and of other files (not).
std::string text_with_paths(std::mt19937& random) {
  static const std::vector<std::string> pieces = {
      ".file 1 \"/home/ci/k/kernel_",
      ".cu\"\n",
      "at /tmp/build/src/op_",
      ".cuh\n",
      " -I/root/include/x",
      ".h ",
      "/usr/include/cuda.h ",
      "//comment/",
      "/workspace/a/b_",
      ".cpp\n",
      "/home/ci/data/table.bin\n",
      std::string(1, '\0'),
      "ld.global.f32 %f1, [%rd1];\n",
  };
  std::string text;
  for (int i = 0; i < 200; ++i) {
    text += pieces[random() % pieces.size()];
    if (random() % 3 == 0) text += std::to_string(random() % 40);
  }
  return text;
}

TEST(ChunkedSourcePathScan, FindsWhatTheWholeTextHoldsWhereverItIsCut) {
  std::mt19937 random(11);
  for (int text_index = 0; text_index < 20; ++text_index) {
    const std::string text = text_with_paths(random);
    const Strings whole = found_whole(text);
    ASSERT_FALSE(whole.empty()) << "the text holds builder paths of sources";
    for (int round = 0; round < 50; ++round) {
      std::vector<std::size_t> cuts;
      for (std::size_t at = 0;;) {
        at += 1 + random() % (round % 5 == 0 ? 3 : 120);  // some rounds in chunks of one to three bytes
        if (at >= text.size()) break;
        cuts.push_back(at);
      }
      EXPECT_EQ(found_in_chunks(text, cuts), whole) << "text " << text_index << ", round " << round;
    }
  }
}

TEST(ChunkedSourcePathScan, CutsAtTheEdgesOfSeparators) {
  const std::string text = "x /home/ci/one.cu\n/home/ci/two.cu /tmp/three.cu";
  const Strings all = {"/home/ci/one.cu", "/home/ci/two.cu", "/tmp/three.cu"};
  ASSERT_EQ(found_whole(text), all);
  for (std::size_t cut = 1; cut < text.size(); ++cut) {
    EXPECT_EQ(found_in_chunks(text, {cut}), all) << "cut at " << cut;
    for (std::size_t second = cut + 1; second < text.size(); ++second)
      EXPECT_EQ(found_in_chunks(text, {cut, second}), all) << "cuts at " << cut << ", " << second;
  }
  // A separator alone; a chunk whose only separator is its last byte
  // ("/one.cu\n"); a carried run ("x /home/ci/o", "ne.cu") ended by a chunk
  // that starts with a separator ("\n/home/ci/two.cu").
  EXPECT_EQ(found_in_chunks(text, {17, 18}), all);
  EXPECT_EQ(found_in_chunks(text, {10, 18}), all);
  EXPECT_EQ(found_in_chunks(text, {12, 17, 33}), all);
}

}  // namespace
}  // namespace kcheck::testing
