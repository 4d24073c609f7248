// Upload text in the human formats (issue #14, class 12: terminal injection;
// class 9: JUnit that is not UTF-8): control characters, line breaks,
// bidirectional overrides and invalid bytes become visible escapes, in every
// field of every human format.
#include "checker/report/display_text.h"

#include <gtest/gtest.h>

#include "checker/report/render.h"

namespace kcheck {
namespace {

TEST(DisplayText, KeepsOrdinaryTextAsItIs) {
  EXPECT_EQ(display_safe("build/torch212-cxx11-cpu-x86_64-linux/relu.py"),
            "build/torch212-cxx11-cpu-x86_64-linux/relu.py");
  EXPECT_EQ(display_safe("naïve/日本語/😀.py"), "naïve/日本語/😀.py");
  EXPECT_EQ(display_safe(""), "");
}

TEST(DisplayText, EscapesWhatControlsADisplay) {
  EXPECT_EQ(display_safe("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(display_safe("\x1b]8;;http://x\x07link\x1b[2J"), "\\x1b]8;;http://x\\x07link\\x1b[2J");
  EXPECT_EQ(display_safe("del\x7f"), "del\\x7f");
  EXPECT_EQ(display_safe("c1\xc2\x9b"
                         "31m"),
            "c1\\u009b31m")
      << "C1 CSI";
  EXPECT_EQ(display_safe("abc\xe2\x80\xae"
                         "fdp.exe"),
            "abc\\u202efdp.exe")
      << "right-to-left override";
  EXPECT_EQ(display_safe("x\xe2\x80\xa8y"), "x\\u2028y") << "line separator";
  EXPECT_EQ(display_safe("\xef\xbb\xbfz"), "\\ufeffz");
  EXPECT_EQ(display_safe("\xef\xbf\xbe"), "\\ufffe") << "a noncharacter XML cannot carry";
  EXPECT_EQ(display_safe("a\xd8\x9c"
                         "b"),
            "a\\u061cb")
      << "Arabic letter mark, a bidi control";
  EXPECT_EQ(display_safe("\xf3\xa0\x80\x81"), "\\U000e0001") << "a tag character";
}

TEST(DisplayText, WritesInvalidBytesAsHex) {
  EXPECT_EQ(display_safe("bad\xff\xfe"), "bad\\xff\\xfe");
  EXPECT_EQ(display_safe("\xc0\xaf"), "\\xc0\\xaf") << "overlong '/'";
  EXPECT_EQ(display_safe("\xed\xa0\x80"), "\\xed\\xa0\\x80") << "a UTF-16 surrogate";
  EXPECT_EQ(display_safe("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80") << "above U+10FFFF";
  EXPECT_EQ(display_safe("cut\xe6\x97"), "cut\\xe6\\x97");
}

bool valid_utf8_without_controls(const std::string& text, bool newlines_allowed) {
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && !(newlines_allowed && (c == '\n' || c == '\t'))) return false;
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    i += length;
  }
  return true;
}

TEST(DisplayText, NoHumanFormatCarriesUploadControlsOrBadBytes) {
  const std::string hostile = "evil\x1b[2J\nFAKE: PASS\xff\xe2\x80\xae";
  Report report;
  report.tool_version = "0";
  report.policy_name = "hub";
  report.audited_root = "/r/" + hostile;
  report.scope = "tree";
  report.variants.push_back({hostile, "build/" + hostile, "cpu", {}});
  report.findings.push_back({"KL005",
                             Severity::error,
                             "file '" + hostile + "' must not ship",
                             hostile,
                             "build/" + hostile + "/x.py",
                             {.symbol = hostile, .line = 2},
                             false,
                             ""});
  report.dynamic.op_checks.push_back({hostile, hostile + "::op", "float32", "4", 0, 0, false});
  // Issue #28 item 12: the dynamic fields a kernel's run or its Python can set.
  report.dynamic.containment = hostile;
  report.dynamic.devices.push_back({hostile, hostile, "cuda", 3000, 800, hostile});
  BenchmarkResult benchmark;
  benchmark.variant = benchmark.op = benchmark.dtype = benchmark.shape = hostile;
  benchmark.median_us = 10;
  benchmark.eager = benchmark.eager_problem = benchmark.compiled_problem = hostile;
  benchmark.compiled.push_back({hostile, 0, 0, 0, hostile});
  report.dynamic.benchmarks.push_back(benchmark);
  report.dynamic.runs.push_back({hostile, false, hostile, 0, 0, hostile, hostile, hostile});
  finalise_report(report);
  for (OutputFormat format : {OutputFormat::text, OutputFormat::markdown, OutputFormat::html, OutputFormat::junit}) {
    const std::string output = render_report(report, format, {});
    EXPECT_TRUE(valid_utf8_without_controls(output, true)) << static_cast<int>(format);
    EXPECT_EQ(output.find("\nFAKE: PASS"), std::string::npos) << "a forged line";
    // Shown as escapes (Markdown escapes the backslashes once more: `\\x1b\[2J`).
    std::size_t shown = 0;
    for (std::size_t at = output.find("FAKE: PASS"); at != std::string::npos; at = output.find("FAKE: PASS", at + 1)) {
      EXPECT_EQ(output.substr(at - 2, 2), "\\n") << output.substr(0, 2000);
      ++shown;
    }
    EXPECT_GE(shown, 3u) << "variant, file, message and op all show the name";
    EXPECT_NE(output.find("\\xff"), std::string::npos);
    EXPECT_NE(output.find("\\u202e"), std::string::npos);
  }
}

}  // namespace
}  // namespace kcheck
