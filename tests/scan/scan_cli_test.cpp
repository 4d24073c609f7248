// `kcheck scan` and `kcheck merge` as a user runs them: exit status, files written.
#include <sys/wait.h>

#include <algorithm>
#include <set>

#include "tests/scan/scan_test_support.h"

namespace kcheck::scan_test {
namespace {

int kcheck_command(const std::string& arguments, const fs::path& out) {
  const std::string command = "NO_COLOR= '" + std::string(KCHECK_EXECUTABLE) + "' " + arguments + " >'" + out.string() +
                              "' 2>'" + out.string() + ".err'";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

TEST(ScanCli, ShardsWrittenByArrayTasksMergeIntoTheUnshardedDocument) {
  const fs::path dir = scratch_dir();
  const std::string fixtures = quoted(KCHECK_TREE_FIXTURES_DIR);
  const std::string cache = " --cache " + quoted(dir / "cache");
  EXPECT_EQ(kcheck_command("scan --format json" + cache + " " + fixtures, dir / "whole.json"), 1);
  std::string shards;
  for (int index = 0; index < 3; ++index) {
    const fs::path shard = dir / ("shard-" + std::to_string(index) + ".json");
    const int status =
        kcheck_command("scan --format json --shard " + std::to_string(index) + "/3" + cache + " " + fixtures, shard);
    EXPECT_LE(status, 1) << read_file(shard.string() + ".err");
    shards += " " + quoted(shard);
  }
  EXPECT_EQ(kcheck_command("merge" + shards, dir / "merged.json"), 1);
  EXPECT_EQ(read_file(dir / "merged.json"), read_file(dir / "whole.json"));
  EXPECT_EQ(kcheck_command("merge " + quoted(dir / "shard-0.json"), dir / "partial.json"), 2);
  EXPECT_NE(read_file(dir / "partial.json.err").find("shard 1/3 is missing"), std::string::npos)
      << read_file(dir / "partial.json.err");
}

TEST(ScanCli, ReportDirectoryHoldsOneReportPerRepositoryAndTheScanDocument) {
  const fs::path dir = scratch_dir();
  copy_fixture("clean_cpu_variants_from_template", dir / "root" / "owner" / "relu@v1");
  copy_fixture("kp003_match_statement", dir / "root" / "owner" / "other");
  EXPECT_EQ(
      kcheck_command("scan --no-cache --format sarif --report-dir " + quoted(dir / "out") + " " + quoted(dir / "root"),
                     dir / "summary.txt"),
      1);
  EXPECT_TRUE(fs::exists(dir / "out" / "owner--relu@v1.sarif"));
  EXPECT_TRUE(fs::exists(dir / "out" / "owner--other.sarif"));
  EXPECT_TRUE(fs::exists(dir / "out" / "scan.json"));
  const std::string summary = read_file(dir / "summary.txt");
  EXPECT_NE(summary.find("owner/relu@v1"), std::string::npos) << summary;
  EXPECT_NE(summary.find("2 repositories, 1 failing"), std::string::npos) << summary;
  EXPECT_EQ(kcheck_command("scan --no-cache --format sarif " + quoted(dir / "root"), dir / "no-dir.txt"), 2);
}

// The reports of --report-dir are rendered as `kcheck PATH` renders one: the
// line formats list notes, text hides them unless --show-notes.
TEST(ScanCli, ReportDirectoryRendersAsTheAuditDoes) {
  const fs::path dir = scratch_dir();
  copy_fixture("ke012_lazy_binding_note", dir / "root" / "owner" / "lazy");
  kcheck_command(
      "scan --no-cache --format concise --report-dir " + quoted(dir / "concise") + " " + quoted(dir / "root"),
      dir / "concise.txt");
  EXPECT_NE(read_file(dir / "concise" / "owner--lazy.txt").find(": KE012 "), std::string::npos)
      << read_file(dir / "concise" / "owner--lazy.txt");
  kcheck_command("scan --no-cache --report-dir " + quoted(dir / "text") + " " + quoted(dir / "root"), dir / "text.txt");
  EXPECT_EQ(read_file(dir / "text" / "owner--lazy.txt").find("KE012"), std::string::npos);
  kcheck_command("scan --no-cache --show-notes --report-dir " + quoted(dir / "notes") + " " + quoted(dir / "root"),
                 dir / "notes.txt");
  EXPECT_NE(read_file(dir / "notes" / "owner--lazy.txt").find("note    KE012"), std::string::npos)
      << read_file(dir / "notes" / "owner--lazy.txt");
}

std::set<std::string> files_in(const fs::path& directory) {
  std::set<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory)) names.insert(entry.path().filename());
  return names;
}

// Issue #14: a nested `a@b/c/build/` (no top-level build/) once made the
// report name "x--a@b/c" and aborted the scan with every other report lost.
TEST(ScanCli, HostileRepositoryNamesGetSafeReportNamesAndLoseNoOtherReport) {
  const fs::path dir = scratch_dir();
  copy_fixture("clean_cpu_variants_from_template", dir / "root" / "x" / "a@b" / "c");
  copy_fixture("clean_cpu_variants_from_template", dir / "root" / "owner" / "relu");
  EXPECT_EQ(
      kcheck_command("scan --no-cache --format json --report-dir " + quoted(dir / "out") + " " + quoted(dir / "root"),
                     dir / "scan.json"),
      0)
      << read_file(dir / "scan.json.err");
  const std::set<std::string> written = files_in(dir / "out");
  ASSERT_EQ(written.size(), 3u);
  EXPECT_TRUE(written.contains("owner--relu.json"));
  EXPECT_TRUE(written.contains("scan.json"));
  EXPECT_TRUE(std::any_of(written.begin(), written.end(),
                          [](const std::string& name) { return name.starts_with("x--a_40b--c-"); }));
}

TEST(ScanCli, AReportThatCannotBeWrittenIsNamedAndTheOthersAreWritten) {
  const fs::path dir = scratch_dir();
  copy_fixture("clean_cpu_variants_from_template", dir / "root" / "owner" / "relu");
  copy_fixture("clean_cpu_variants_from_template", dir / "root" / "owner" / "gelu");
  fs::create_directories(dir / "out" / "owner--gelu.sarif");  // a directory where the report should go
  EXPECT_EQ(
      kcheck_command("scan --no-cache --format sarif --report-dir " + quoted(dir / "out") + " " + quoted(dir / "root"),
                     dir / "summary.txt"),
      2);
  EXPECT_TRUE(fs::is_regular_file(dir / "out" / "owner--relu.sarif"));
  EXPECT_TRUE(fs::is_regular_file(dir / "out" / "scan.json"));
  EXPECT_NE(read_file(dir / "summary.txt").find("2 repositories, 0 failing"), std::string::npos);
  const std::string errors = read_file(dir / "summary.txt.err");
  EXPECT_NE(errors.find("owner--gelu.sarif"), std::string::npos) << errors;
}

TEST(ScanCli, StatsShowThatARescanAnalysesNothing) {
  const fs::path dir = scratch_dir();
  copy_fixture("clean_cpu_variants_from_template", dir / "root" / "relu");
  wait_until_settled();
  const std::string command = "scan --stats --cache " + quoted(dir / "cache") + " " + quoted(dir / "root");
  EXPECT_EQ(kcheck_command(command, dir / "first.txt"), 0);
  EXPECT_EQ(kcheck_command(command, dir / "second.txt"), 0);
  const std::string stats = read_file(dir / "second.txt.err");
  EXPECT_NE(stats.find("facts: 0 files analysed"), std::string::npos) << stats;
}

TEST(ScanCli, BadShardIsAUsageError) {
  const fs::path dir = scratch_dir();
  EXPECT_EQ(kcheck_command("scan --shard 3/3 " + quoted(KCHECK_TREE_FIXTURES_DIR), dir / "out.txt"), 2);
  EXPECT_EQ(kcheck_command("scan " + quoted(dir / "missing"), dir / "missing.txt"), 2);
}

}  // namespace
}  // namespace kcheck::scan_test
