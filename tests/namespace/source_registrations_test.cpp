// The op registrations written in a kernel's C++ sources (a source
// repository, before any build: KO001 with file and line).
#include <gtest/gtest.h>

#include "checker/kinds/namespace_facts.h"

namespace kcheck {
namespace {

std::vector<std::string> found(std::string_view text) {
  std::vector<std::string> out;
  for (const SourceRegistration& registration : find_source_registrations(text, "binding.cpp"))
    out.push_back(registration.macro + "(" + registration.namespace_ + ")@" + std::to_string(registration.line) +
                  (literal_namespace(registration) ? " literal" : ""));
  return out;
}

TEST(SourceRegistrations, EachFormWithItsLineAndWhetherItsNamespaceIsLiteral) {
  EXPECT_EQ(
      found("#include <torch/library.h>\n"
            "TORCH_LIBRARY(relu, m) {}\n"
            "TORCH_LIBRARY_IMPL( relu , CPU, m) {}\n"
            "STABLE_TORCH_LIBRARY_FRAGMENT(\n  my_ops, m) {}\n"
            "TORCH_LIBRARY_IMPL(aten, CUDA, m) {}\n"
            "TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {}\n"
            "TORCH_LIBRARY(TORCH_EXTENSION_NAME, m) {}\n"
            "#define TORCH_LIBRARY_EXPAND(NAME, MODULE) TORCH_LIBRARY(NAME, MODULE)\n"),
      (std::vector<std::string>{"TORCH_LIBRARY(relu)@2 literal", "TORCH_LIBRARY_IMPL(relu)@3 literal",
                                "STABLE_TORCH_LIBRARY_FRAGMENT(my_ops)@4 literal", "TORCH_LIBRARY_IMPL(aten)@6 literal",
                                "TORCH_LIBRARY(TORCH_EXTENSION_NAME)@8", "TORCH_LIBRARY(NAME)@9"}));
}

TEST(SourceRegistrations, CommentsStringsAndOtherNamesAreNotRegistrations) {
  EXPECT_EQ(found("// TORCH_LIBRARY(commented, m)\n"
                  "/* TORCH_LIBRARY(block, m)\n */\n"
                  "const char* s = \"TORCH_LIBRARY(quoted, m)\";\n"
                  "char c = '\"'; MY_TORCH_LIBRARY(other, m)\n"
                  "// Returns a scalar to satisfy TORCH_LIBRARY (can't return int)\n"
                  "TORCH_LIBRARY(after, m) {}\n"),
            std::vector<std::string>{"TORCH_LIBRARY(after)@7 literal"});
  EXPECT_EQ(found(""), std::vector<std::string>{});
  EXPECT_EQ(found("TORCH_LIBRARY("), std::vector<std::string>{});
  EXPECT_EQ(found("/* never closed TORCH_LIBRARY(x, m)"), std::vector<std::string>{});
  EXPECT_EQ(found("\"never closed TORCH_LIBRARY(x, m)"), std::vector<std::string>{});
  EXPECT_EQ(found("\"ends with its line\nTORCH_LIBRARY(y, m) {}"),
            std::vector<std::string>{"TORCH_LIBRARY(y)@2 literal"});
  EXPECT_EQ(found("constexpr int k = 1'000; TORCH_LIBRARY(after_separator, m) {}"),
            std::vector<std::string>{"TORCH_LIBRARY(after_separator)@1 literal"})
      << "a digit separator opens no character literal";
  EXPECT_EQ(found("auto s = R\"doc(\nTORCH_LIBRARY(in_raw, m)\n)doc\";\nTORCH_LIBRARY(after_raw, m) {}"),
            std::vector<std::string>{"TORCH_LIBRARY(after_raw)@4 literal"})
      << "a raw string spans lines";
}

}  // namespace
}  // namespace kcheck
