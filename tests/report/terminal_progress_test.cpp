// The terminal progress line: drawn at the first event, then at most once per
// interval, erased at the end; and kcheck prints nothing on stderr when it is
// not a terminal.
#include "checker/report/terminal_progress.h"

#include <gtest/gtest.h>

#include <sstream>

#include "tests/report/report_test_support.h"

namespace kcheck {
namespace {

using namespace kcheck::testing;
using namespace std::chrono_literals;

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  TerminalProgress::Clock function() {
    return [this] { return now; };
  }
};

TEST(TerminalProgress, DescribesTheCounters) {
  EXPECT_EQ(TerminalProgress::describe(1, 0, 0), "kcheck: 1 file scanned · 0 B hashed");
  EXPECT_EQ(TerminalProgress::describe(120, 35'200'000, 0), "kcheck: 120 files scanned · 35.2 MB hashed");
  EXPECT_EQ(TerminalProgress::describe(3, 999, 2), "kcheck: 3 files scanned · 999 B hashed · 2 variants run");
  EXPECT_EQ(TerminalProgress::describe(3, 1'500'000'000, 1), "kcheck: 3 files scanned · 1.5 GB hashed · 1 variant run");
}

TEST(TerminalProgress, DrawsFirstThenAtMostOncePerInterval) {
  std::ostringstream out;
  FakeClock clock;
  TerminalProgress progress(out, clock.function(), 100ms);
  progress.advance(ProgressCounter::files_scanned, 1);
  EXPECT_EQ(out.str(), "\rkcheck: 1 file scanned · 0 B hashed");
  clock.now += 50ms;
  progress.advance(ProgressCounter::files_scanned, 1);
  progress.advance(ProgressCounter::bytes_hashed, 2048);
  EXPECT_EQ(out.str(), "\rkcheck: 1 file scanned · 0 B hashed") << "throttled";
  clock.now += 50ms;
  progress.advance(ProgressCounter::variants_run, 1);
  EXPECT_EQ(out.str(),
            "\rkcheck: 1 file scanned · 0 B hashed"
            "\rkcheck: 2 files scanned · 2.0 kB hashed · 1 variant run");
}

TEST(TerminalProgress, FinishErasesTheLineOnce) {
  std::ostringstream out;
  FakeClock clock;
  {
    TerminalProgress progress(out, clock.function(), 0ms);
    progress.advance(ProgressCounter::variants_run, 10);
    std::string line = TerminalProgress::describe(0, 0, 10);
    EXPECT_EQ(out.str(), "\r" + line);
    out.str("");
    progress.finish();
    std::size_t columns = line.size() - 2;  // each '·' is two bytes, one column
    EXPECT_EQ(out.str(), "\r" + std::string(columns, ' ') + "\r");
    out.str("");
    progress.finish();
    EXPECT_EQ(out.str(), "") << "finish is idempotent";
  }
  EXPECT_EQ(out.str(), "") << "nothing more at destruction";
}

TEST(TerminalProgress, NothingDrawnNothingErased) {
  std::ostringstream out;
  FakeClock clock;
  { TerminalProgress progress(out, clock.function()); }
  EXPECT_EQ(out.str(), "");
}

TEST(TerminalProgress, NoOutputOnStderrWhenItIsNoTerminal) {
  RunResult run = kcheck("--format json " + fixture("kl005_files_that_must_not_ship"));
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.err, "");
}

TEST(TerminalProgress, ATerminalSeesTheProgressLine) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no `script` to make a terminal";
  fs::path report = scratch_dir() / "report.json";
  // `script` runs kcheck on a pseudo-terminal and copies what it shows to stdout.
  RunResult run =
      run_command("script -qec \"'" + std::string(KCHECK_EXECUTABLE) + "' --format json -o '" + report.string() +
                  "' '" + KCHECK_TREE_FIXTURES_DIR + "/kl005_files_that_must_not_ship'\" /dev/null");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("\rkcheck: "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(" scanned · "), std::string::npos) << run.out;
  EXPECT_FALSE(read_text(report).empty());
}

}  // namespace
}  // namespace kcheck
