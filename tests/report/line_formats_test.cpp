// The line formats (github, concise): one line per unsuppressed finding,
// paths relative to the repository, and no upload text that can start a
// workflow command or a line of its own.
#include <gtest/gtest.h>

#include "checker/report/line_formats.h"
#include "checker/report/report_view.h"
#include "tests/report/report_test_support.h"

namespace kcheck {
namespace {

using testing::sample_report;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end = text.find('\n'); end != std::string::npos; start = end + 1, end = text.find('\n', start))
    lines.push_back(text.substr(start, end - start));
  EXPECT_EQ(start, text.size()) << "ends with a newline";
  return lines;
}

TEST(GithubFormat, OneAnnotationPerUnsuppressedFindingWithFileLineAndTitle) {
  const std::vector<std::string> lines =
      lines_of(render_github(sample_report(), std::filesystem::path("/tmp/my kernel")));
  ASSERT_EQ(lines.size(), 4u) << "the suppressed KL005 is left out";
  EXPECT_EQ(lines[0], "::error title=KL006::required variant torch213-cxx11-cpu-x86_64-linux is missing")
      << "a tree finding names no file";
  EXPECT_EQ(lines[1],
            "::error file=build/torch212-cxx11-cpu-x86_64-linux/relu/helpers.py,line=7,col=5,title=KP003::match "
            "statement needs Python 3.10");
  EXPECT_EQ(lines[2],
            "::error file=build/torch213-cxx11-cu130-x86_64-linux/_relu.abi3.so,title=KE001::[exp@GLIBC_2.29] "
            "exp@GLIBC_2.29 is above GLIBC 2.28");
  EXPECT_TRUE(
      lines[3].starts_with("::warning file=build/torch213-cxx11-cu130-x86_64-linux/metadata.json,title=KM002::"));
}

// Issue #29: the human formats show a place inside a JSON file as jq does,
// never a JSON pointer's escapes (`layers~1__init__.py`).
TEST(ReadableJsonPointer, ShowsAPlaceInJsonAsJqWritesIt) {
  EXPECT_EQ(readable_json_pointer("/digest/files/layers~1__init__.py"), ".digest.files[\"layers/__init__.py\"]");
  EXPECT_EQ(readable_json_pointer("/kernels/0/name"), ".kernels[0].name");
  EXPECT_EQ(readable_json_pointer("/a~0b/say \"hi\""), ".[\"a~b\"][\"say \\\"hi\\\"\"]");
  EXPECT_EQ(readable_json_pointer("/python-depends"), ".[\"python-depends\"]") << "jq reads .python-depends as a minus";
  EXPECT_EQ(readable_json_pointer("/"), ".[\"\"]") << "the pointer / is the key \"\", not the whole document";
  EXPECT_EQ(readable_json_pointer(""), "");
  Finding finding;
  finding.file = "build/v/metadata.json";
  finding.location.json_pointer = "/digest/files/layers~1__init__.py";
  EXPECT_EQ(finding_place(finding), "build/v/metadata.json .digest.files[\"layers/__init__.py\"]");
}

TEST(GithubFormat, UploadTextCannotStartACommandOrBreakAProperty) {
  Report report = sample_report();
  report.findings = {{"KP002", Severity::error, "bad\n::error::forged 100%", "v", "v/a,b:c.py", {.line = 1}}};
  const std::vector<std::string> lines = lines_of(render_github(report, std::nullopt));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "::error file=v/a%2Cb%3Ac.py,line=1,title=KP002::bad\\n::error::forged 100%25");
}

TEST(ConciseFormat, PathLineCodeMessage) {
  const std::vector<std::string> lines = lines_of(render_concise(sample_report(), std::nullopt));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], ".: KL006 required variant torch213-cxx11-cpu-x86_64-linux is missing");
  EXPECT_EQ(lines[1], "torch212-cxx11-cpu-x86_64-linux/relu/helpers.py:7: KP003 match statement needs Python 3.10");
  EXPECT_EQ(
      lines[2],
      "torch213-cxx11-cu130-x86_64-linux/_relu.abi3.so: KE001 [exp@GLIBC_2.29] exp@GLIBC_2.29 is above GLIBC 2.28");
}

}  // namespace
}  // namespace kcheck
