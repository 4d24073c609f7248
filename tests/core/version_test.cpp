#include <gtest/gtest.h>

#include "checker/support/version.h"

namespace kcheck {
namespace {

TEST(Version, ParsesDottedNumbersAndComparesComponentWise) {
  EXPECT_LT(*Version::parse("2.28"), *Version::parse("2.29"));
  EXPECT_LT(*Version::parse("3.4.9"), *Version::parse("3.4.24"));  // numeric, not lexical
  EXPECT_EQ(*Version::parse("13.0"), *Version::parse("13"));       // missing components are zero
  EXPECT_GT(*Version::parse("1.3.11"), *Version::parse("1.3.9"));
  EXPECT_EQ(Version::parse("2.10.1")->str(), "2.10.1");
}

TEST(Version, RejectsAnythingButDigitsAndDots) {
  for (const char* bad : {"", ".", "2.", ".2", "2..8", "2.x", "v2", "2.28 ", "-1"})
    EXPECT_FALSE(Version::parse(bad)) << bad;
}

TEST(SymbolVersion, SplitsFamilyAndVersion) {
  auto glibcxx = parse_symbol_version("GLIBCXX_3.4.25");
  ASSERT_TRUE(glibcxx);
  EXPECT_EQ(glibcxx->family, "GLIBCXX");
  EXPECT_EQ(glibcxx->version, *Version::parse("3.4.25"));
  auto glibc = parse_symbol_version("GLIBC_2.2.5");
  ASSERT_TRUE(glibc);
  EXPECT_EQ(glibc->family, "GLIBC");
  EXPECT_FALSE(parse_symbol_version("GLIBC_PRIVATE"));
  EXPECT_FALSE(parse_symbol_version("CXXABI_TM_1"));
  EXPECT_FALSE(parse_symbol_version("Base"));
}

}  // namespace
}  // namespace kcheck
