// kcheck_worker's timing layout (checker/harness/worker/timing_layout.h):
// input sets beyond the last-level cache, and several output blocks only
// where the outputs exceed it and the device's memory allows.
#include "checker/harness/worker/timing_layout.h"

#include <gtest/gtest.h>

namespace kcheck::worker {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;
constexpr std::int64_t kGiB = std::int64_t{1} << 30;
constexpr std::int64_t kL2 = 60 * kMiB;     // an H200's last-level cache, about
constexpr std::int64_t kH200 = 141 * kGiB;  // and its memory, about

TEST(TimingLayout, OutputsThatFitTheCacheShareOneBlock) {
  // relu float32 at 256 x 8192: 8 MiB in, 8 MiB out; the inputs rotate to miss the cache.
  const TimingLayout layout = timing_layout(8 * kMiB, 8 * kMiB, kL2, kH200);
  EXPECT_EQ(layout.output_placements, 1);
  EXPECT_EQ(layout.buffer_sets, 15) << "ceil(2 x 60 MiB / (8 MiB + 1 B))";
}

TEST(TimingLayout, OutputsBeyondTheCacheTakeSeveralBlocks) {
  // silu float32 at 16384 x 16384: 1 GiB in, 1 GiB out.
  const TimingLayout layout = timing_layout(kGiB, kGiB, kL2, kH200);
  EXPECT_EQ(layout.output_placements, kOutputPlacements);
  EXPECT_EQ(layout.buffer_sets, kOutputPlacements) << "one input set per output block";
}

TEST(TimingLayout, TwiceTheCacheIsTheThreshold) {
  EXPECT_EQ(timing_layout(kGiB, 2 * kL2, kL2, kH200).output_placements, 1);
  EXPECT_EQ(timing_layout(kGiB, 2 * kL2 + 1, kL2, kH200).output_placements, kOutputPlacements);
}

TEST(TimingLayout, MoreInputSetsThanBlocksStay) {
  // A small input with a large output (a broadcast): the input sets the cache asks for stay.
  const TimingLayout layout = timing_layout(kMiB, kGiB, kL2, kH200);
  EXPECT_EQ(layout.output_placements, kOutputPlacements);
  EXPECT_EQ(layout.buffer_sets, 64) << "at most kMaxBufferSets";
}

TEST(TimingLayout, InputSetsAreWholeRoundsOverTheBlocks) {
  // 20 MiB in, 1 GiB out: the cache asks for 6 input sets (2 x 60 MiB / (20 MiB + 1 B), rounded
  // down, as before output blocks); 8 give each of the 4 blocks two.
  EXPECT_EQ(timing_layout(20 * kMiB, kGiB, kL2, kH200).buffer_sets, 8);
  EXPECT_EQ(timing_layout(20 * kMiB, 20 * kMiB, kL2, kH200).buffer_sets, 6) << "one shared block: as the cache asks";
}

TEST(TimingLayout, OneBlockWhereMemoryIsShortOrUnknown) {
  // 4 x (2 GiB in + 2 x 1 GiB out) = 16 GiB: more than a quarter of a 48 GiB device.
  EXPECT_EQ(timing_layout(2 * kGiB, kGiB, kL2, 48 * kGiB).output_placements, 1);
  EXPECT_EQ(timing_layout(2 * kGiB, kGiB, kL2, 48 * kGiB).buffer_sets, 1);
  EXPECT_EQ(timing_layout(2 * kGiB, kGiB, kL2, 64 * kGiB).output_placements, kOutputPlacements) << "16 GiB of 64";
  // Every input set counts: 8 sets of 16 MiB in and 4 x 2 x 1 GiB out take 8 GiB + 128 MiB, a
  // quarter of 32.5 GiB; a quarter of 32.25 GiB is 64 MiB short (4 sets alone would have fitted).
  EXPECT_EQ(timing_layout(16 * kMiB, kGiB, kL2, 32 * kGiB + 512 * kMiB).buffer_sets, 8);
  EXPECT_EQ(timing_layout(16 * kMiB, kGiB, kL2, 32 * kGiB + 512 * kMiB).output_placements, kOutputPlacements);
  EXPECT_EQ(timing_layout(16 * kMiB, kGiB, kL2, 32 * kGiB + 256 * kMiB).output_placements, 1);
  // No memory figure: one block (the layout as before output placements).
  EXPECT_EQ(timing_layout(kGiB, kGiB, 32 * kMiB, 0).output_placements, 1);
  EXPECT_EQ(timing_layout(kGiB, kGiB, 32 * kMiB, 0).buffer_sets, 1);
}

}  // namespace
}  // namespace kcheck::worker
