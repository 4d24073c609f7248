// The linear matchers that replaced std::regex (issue #14), the checked
// number parse that replaced std::stoul, and UTF-8 validation.
#include <gtest/gtest.h>

#include "tests/support/repeated_text.h"

#include "checker/support/name_shapes.h"
#include "checker/support/text_scan.h"

namespace kcheck {
namespace {

using testing_support::repeated;

TEST(TextScan, ParseDecimalRefusesWhatStoulThrowsOnOrAccepts) {
  EXPECT_EQ(text::parse_decimal<std::uint32_t>("0"), 0u);
  EXPECT_EQ(text::parse_decimal<std::uint32_t>("4294967295"), 4294967295u);
  EXPECT_FALSE(text::parse_decimal<std::uint32_t>("4294967296"));
  EXPECT_FALSE(text::parse_decimal<std::uint64_t>(std::string(30, '9')));
  for (const char* bad : {"", " 1", "1 ", "+1", "-1", "1a", "0x10"})
    EXPECT_FALSE(text::parse_decimal<std::uint64_t>(bad)) << bad;
}

TEST(TextScan, MajorMinor) {
  EXPECT_TRUE(text::is_major_minor("12.4"));
  for (const char* bad : {"12", "12.", ".4", "12.4.1", "1a.2", ""}) EXPECT_FALSE(text::is_major_minor(bad)) << bad;
  EXPECT_EQ(text::major_minor_after("Cuda compilation tools, release 12.4, V12.4.131", "release "), "12.4");
  EXPECT_EQ(text::major_minor_after("release x, release 9.1", "release "), "9.1");
  EXPECT_FALSE(text::major_minor_after("release 12", "release "));
}

TEST(TextScan, FirstInvalidUtf8) {
  EXPECT_FALSE(text::first_invalid_utf8("plain ascii"));
  EXPECT_FALSE(text::first_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_EQ(text::first_invalid_utf8("ab\xFF"), 2u);
  EXPECT_EQ(text::first_invalid_utf8("\xC0\xAF"), 0u);          // overlong '/'
  EXPECT_EQ(text::first_invalid_utf8("x\xED\xA0\x80"), 1u);     // a surrogate
  EXPECT_EQ(text::first_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(text::first_invalid_utf8("\xE2\x82"), 0u);          // truncated
}

TEST(NameShapes, KernelNameCapabilityAndRocmArch) {
  for (const char* good : {"relu", "a1", "layer-norm"}) EXPECT_TRUE(is_kernel_name_shape(good)) << good;
  for (const char* bad : {"a", "1a", "relu-", "re_lu", "Relu", ""}) EXPECT_FALSE(is_kernel_name_shape(bad)) << bad;
  for (const char* good : {"8.0", "9.0a", "10.0f", "12.0+PTX", "9.0a+PTX"})
    EXPECT_TRUE(is_cuda_capability_shape(good)) << good;
  for (const char* bad : {"8", "8.", "9.0af", "9.0+ptx", "9.0+PTXx", "sm_90"})
    EXPECT_FALSE(is_cuda_capability_shape(bad)) << bad;
  for (const char* good : {"gfx90a", "gfx942", "gfx1030"}) EXPECT_TRUE(is_rocm_arch_shape(good)) << good;
  for (const char* bad : {"gfx", "gfx90ab", "gfxa", "GFX90a", "gfx90A"}) EXPECT_FALSE(is_rocm_arch_shape(bad)) << bad;
}

// What used to overflow the stack in std::regex: now a plain answer.
TEST(NameShapes, LongInputsAreAnswered) {
  const std::string long_name = repeated("a", 1'000'000);
  EXPECT_TRUE(is_kernel_name_shape(long_name));
  EXPECT_FALSE(is_kernel_name_shape(long_name + "_"));
  EXPECT_FALSE(is_cuda_capability_shape(repeated("9", 1'000'000) + ".0x"));
}

}  // namespace
}  // namespace kcheck
