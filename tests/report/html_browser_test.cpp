// The HTML report in a real browser: headless Chromium (Debian's `chromium`,
// installed by scripts/setup.sh) loads the page with no console message at
// all (the page has no scripts, so any message is an error: a failed load, a
// blocked resource), takes a screenshot, and the charts exist in the DOM it built.
#include <gtest/gtest.h>

#include <cstdint>
#include <regex>

#include "checker/core/report.h"
#include "tests/report/report_test_support.h"

namespace kcheck {
namespace {

using namespace kcheck::testing;

bool chromium_present() { return std::system("command -v chromium >/dev/null 2>&1") == 0; }

RunResult chromium(const std::string& arguments, const fs::path& page) {
  fs::path profile = scratch_dir() / "profile";
  return run_command(
      "timeout 120 chromium --headless=new --no-sandbox --disable-gpu --no-first-run "
      "--disable-extensions --user-data-dir=" +
      shell_quoted(profile) + " " + arguments + " " + shell_quoted("file://" + page.string()));
}

// Console messages Chromium logged while loading (`--enable-logging=stderr`).
std::vector<std::string> console_messages(const std::string& log) {
  std::vector<std::string> messages;
  std::regex console(R"([^\n]*:CONSOLE[^\n]*)");
  for (auto it = std::sregex_iterator(log.begin(), log.end(), console); it != std::sregex_iterator(); ++it)
    messages.push_back(it->str());
  return messages;
}

// Loads the page and returns the DOM after load, failing on any console message.
std::string load_without_console_messages(const fs::path& page) {
  RunResult run = chromium("--enable-logging=stderr --v=0 --dump-dom", page);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::vector<std::string> messages = console_messages(run.err);
  std::string joined;
  for (const std::string& message : messages) joined += "\n  " + message;
  EXPECT_TRUE(messages.empty()) << "console messages while loading " << page << ":" << joined;
  return run.out;
}

std::uint32_t big_endian(const std::string& bytes, std::size_t at) {
  std::uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// The bench report, rendered by `kcheck report` from its saved JSON.
fs::path bench_report_page() {
  fs::path saved = write_scratch("bench.json", report_to_json(sample_bench_report()).dump(2));
  fs::path page = scratch_dir() / "report.html";
  RunResult run = kcheck("report " + shell_quoted(saved) + " --format html -o " + shell_quoted(page));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  return page;
}

TEST(HtmlBrowser, LoadsWithoutConsoleMessagesAndBuildsTheCharts) {
  if (!chromium_present()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  std::string dom = load_without_console_messages(bench_report_page());
  EXPECT_EQ(count(dom, "<svg class=\"chart-bandwidth\""), 1u) << dom;
  EXPECT_EQ(count(dom, "<svg class=\"chart-speedup\""), 1u) << dom;
  EXPECT_EQ(count(dom, "<svg class=\"chart-compile-speedup\""), 1u) << dom;
  // 4 results: 4 bandwidth bars (% of the roofline), 4 eager speed-up bars, 3 compiled (one row has no timed mode).
  EXPECT_EQ(count(dom, "<rect class=\"bar"), 11u) << dom;
  // 100% of the roofline (the copy bandwidth), 1× eager, 1× compiled.
  EXPECT_EQ(count(dom, "<line class=\"reference\""), 3u) << dom;
  EXPECT_EQ(count(dom, "<details class=\"variant\""), 1u) << dom;
}

TEST(HtmlBrowser, TakesAScreenshotOfTheWholeWindow) {
  if (!chromium_present()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  fs::path page = bench_report_page();
  fs::path screenshot = scratch_dir() / "report.png";
  fs::remove(screenshot);
  RunResult run = chromium("--hide-scrollbars --window-size=1200,1600 --screenshot=" + shell_quoted(screenshot), page);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::string png = read_text(screenshot);
  ASSERT_GE(png.size(), 24u) << "no screenshot: " << run.err;
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(big_endian(png, 16), 1200u);  // IHDR width
  EXPECT_EQ(big_endian(png, 20), 1600u);  // IHDR height
  EXPECT_GT(png.size(), 20000u) << "a page with tables and charts is no blank image";
}

TEST(HtmlBrowser, TheConsoleCheckCatchesAScriptError) {
  if (!chromium_present()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  fs::path page =
      write_scratch("broken.html", "<!DOCTYPE html><html><body><script>undefined_function();</script></body></html>");
  RunResult run = chromium("--enable-logging=stderr --v=0 --dump-dom", page);
  std::vector<std::string> messages = console_messages(run.err);
  ASSERT_EQ(messages.size(), 1u) << run.err;
  EXPECT_NE(messages[0].find("Uncaught ReferenceError"), std::string::npos) << messages[0];
}

TEST(HtmlBrowser, AStaticAuditPageLoadsCleanly) {
  if (!chromium_present()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  fs::path page = scratch_dir() / "static.html";
  RunResult run = kcheck("--format html -o " + shell_quoted(page) + " " + fixture("kl007_links_and_special_files"));
  EXPECT_EQ(run.exit_code, 1) << run.err;
  std::string dom = load_without_console_messages(page);
  EXPECT_NE(dom.find("<h1>kcheck: FAIL</h1>"), std::string::npos) << dom;
  EXPECT_EQ(dom.find("<svg"), std::string::npos) << "no benchmark, no chart";
}

// Issue #29: the page uses the window's width, and a long path wraps only
// after a '/', never inside a name. `kcheck .` shows the directory, not a
// lone dot. Measured in the browser by a script the test appends to a copy
// of the page (the page itself has none): the header's width against the
// window's, and where each line of the header's path ends.
TEST(HtmlBrowser, ThePageUsesTheWindowWidthAndPathsWrapOnlyAfterASlash) {
  if (!chromium_present()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  Report report = sample_report();
  report.input = ".";
  report.audited_root = "/srv/kernels";
  for (int i = 0; i < 14; ++i) report.audited_root += "/a-rather-long-directory-name-" + std::to_string(i);
  fs::path saved = write_scratch("layout.json", report_to_json(report).dump(2));
  fs::path page = scratch_dir() / "layout.html";
  RunResult run = kcheck("report " + shell_quoted(saved) + " --format html -o " + shell_quoted(page));
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string measure = R"(<script>
(() => {
const header = document.querySelector("header");
const path = header.querySelector("p.path");
const text = path.textContent;
const range = document.createRange();
const walker = document.createTreeWalker(path, NodeFilter.SHOW_TEXT);
let breaks = [], bad = [], lineTop = null, previous = "", shown = "";
for (let node = walker.nextNode(); node; node = walker.nextNode())
  for (let i = 0; i < node.length; ++i) {
    range.setStart(node, i); range.setEnd(node, i + 1);
    const rect = range.getBoundingClientRect();
    if (lineTop !== null && rect.top > lineTop + 1) { breaks.push(previous); if (previous !== "/") bad.push(shown.slice(-12)); }
    lineTop = rect.top; previous = node.data[i]; shown += node.data[i];
  }
document.body.setAttribute("data-layout", JSON.stringify({
  width: header.getBoundingClientRect().width / window.innerWidth, lines: breaks.length + 1, bad: bad, text: text}));
})();
</script>)";
  std::string html = read_text(page);
  html.insert(html.rfind("</body>"), measure);
  fs::path measured = write_scratch("layout-measured.html", html);
  RunResult loaded = chromium("--window-size=1400,900 --dump-dom", measured);
  ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  std::smatch found;
  ASSERT_TRUE(std::regex_search(loaded.out, found, std::regex(R"re(data-layout="([^"]*)")re"))) << loaded.out;
  std::string json = found[1];
  for (std::size_t at = json.find("&quot;"); at != std::string::npos; at = json.find("&quot;"))
    json.replace(at, 6, "\"");
  const nlohmann::json layout = nlohmann::json::parse(json);
  EXPECT_GT(layout["width"].get<double>(), 0.9) << layout.dump();
  EXPECT_EQ(layout["text"], report.audited_root) << "the directory, not a lone dot";
  EXPECT_GT(layout["lines"].get<int>(), 1) << "the path is long enough to wrap: " << layout.dump();
  EXPECT_EQ(layout["bad"], nlohmann::json::array()) << "lines broken inside a name: " << layout.dump();
}

}  // namespace
}  // namespace kcheck
