// The TOML nesting scan that runs before toml++ (issue #14): toml++ recursed
// once per dotted part of a 60,000-part table header.
#include <gtest/gtest.h>

#include "tests/support/repeated_text.h"

#include "checker/support/checked_toml.h"

namespace kcheck {
namespace {

using testing_support::repeated;

TEST(CheckedToml, OrdinaryDocumentsPass) {
  EXPECT_FALSE(toml_nesting_problem(R"([general]
name = "relu"   # a [comment] with brackets
backends = ["cpu", "cuda"]
x = { a = { b = [1.5, 2.5, 3.5] }, "q.r" = 'single ]]] quoted' }
s = """
multi [[[ line ]]] ""
"""

[kernel.activation]
src = ["a.cpp", "b.cu"]
[[test.cases]]
a.b.c = 1
)"));
  const toml::table root = checked_toml_parse("a.b = [ { c = 1 } ]\n", "t.toml");
  EXPECT_EQ(root["a"]["b"][0]["c"].value<int>(), 1);
}

TEST(CheckedToml, SiblingsDoNotAddUp) {
  std::string wide = "x = {";
  for (int i = 0; i < 1000; ++i) wide += (i ? ", k" : "k") + std::to_string(i) + ".a.b = [1.5, 2.5]";
  wide += "}\n";
  EXPECT_FALSE(toml_nesting_problem(wide));
  EXPECT_FALSE(toml_nesting_problem(repeated("a.b.c = 1\n", 1000)));
  EXPECT_FALSE(toml_nesting_problem("v = [" + repeated("1.5, ", 10000) + "2]\n"));
}

TEST(CheckedToml, DeepHeadersKeysAndBracketsAreRefusedWithLineAndColumn) {
  const std::optional<TomlNestingProblem> header =
      toml_nesting_problem("[general]\n[" + repeated("a.", 60000) + "a]\n");
  ASSERT_TRUE(header);
  EXPECT_EQ(header->line, 2);
  EXPECT_NE(header->description.find("a table header nests deeper than 64"), std::string::npos) << header->description;
  EXPECT_TRUE(toml_nesting_problem(repeated("a.", 64) + "a = 1\n"));
  EXPECT_FALSE(toml_nesting_problem(repeated("a.", 63) + "a = 1\n"));
  EXPECT_TRUE(toml_nesting_problem("x = " + repeated("[", 100000)));
  EXPECT_TRUE(toml_nesting_problem("x = " + repeated("{a = ", 100000)));
  EXPECT_TRUE(toml_nesting_problem("[" + repeated("a.", 40) + "a]\n" + repeated("b.", 40) + "b = 1\n"));
  EXPECT_TRUE(toml_nesting_problem("x = {" + repeated("a.", 40) + "a = {" + repeated("b.", 40) + "b = 1}}\n"));
  try {
    checked_toml_parse("[" + repeated("a.", 60000) + "a]\n", "deep.toml");
    FAIL() << "no parse_error";
  } catch (const toml::parse_error& error) {
    EXPECT_EQ(error.source().begin.line, 1u);
    EXPECT_NE(std::string(error.description()).find("deeper than 64"), std::string::npos);
  }
}

}  // namespace
}  // namespace kcheck
