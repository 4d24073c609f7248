// Report file names in `kcheck scan --report-dir` come from untrusted
// directory names: they are sanitised, distinct, and one failed write loses
// nothing else.
#include <set>

#include "checker/scan/report_directory.h"
#include "tests/scan/scan_test_support.h"

namespace kcheck::scan_test {
namespace {

RepositoryReport repository(const std::string& id, const std::string& revision = "") {
  RepositoryReport report;
  report.id = id;
  report.revision = revision;
  return report;
}

std::vector<std::string> stems_of(const std::vector<RepositoryReport>& repositories) {
  return report_file_stems(repositories);
}

bool is_safe_file_name(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.size() > 200) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-' && c != '@') return false;
  return true;
}

TEST(ReportFileStems, OrdinaryNamesStayReadable) {
  EXPECT_EQ(stems_of({repository("owner/relu", "v1"), repository("relu")}),
            (std::vector<std::string>{"owner--relu@v1", "relu"}));
}

TEST(ReportFileStems, HostileNamesAreSanitisedAndTakeAHashSuffix) {
  const std::vector<RepositoryReport> hostile = {repository("x/a@b/c"),
                                                 repository("owner/relu", "b/c"),
                                                 repository(".."),
                                                 repository(""),
                                                 repository("", "v1"),
                                                 repository(std::string(300, 'a')),
                                                 repository("owner/r\xc3\xa9lu"),
                                                 repository("new\nline"),
                                                 repository("back\\slash")};
  const std::vector<std::string> stems = stems_of(hostile);
  ASSERT_EQ(stems.size(), hostile.size());
  for (const std::string& stem : stems) EXPECT_TRUE(is_safe_file_name(stem + ".sarif")) << stem;
  EXPECT_EQ(std::set<std::string>(stems.begin(), stems.end()).size(), stems.size());
  EXPECT_TRUE(stems[0].starts_with("x--a_40b--c-")) << stems[0];
  EXPECT_EQ(stems[0].size(), std::string("x--a_40b--c-").size() + 12) << stems[0];
}

TEST(ReportFileStems, CollisionsAreMadeUniqueWhateverTheOrderOfTheOthers) {
  // "a/b" and "a--b" both read "a--b"; "Relu" and "relu" meet on a
  // case-insensitive file system; "scan" would be the scan document.
  const std::vector<std::string> stems =
      stems_of({repository("Relu"), repository("a--b"), repository("a/b"), repository("relu"), repository("scan")});
  EXPECT_EQ(std::set<std::string>(stems.begin(), stems.end()).size(), stems.size());
  for (const std::string& stem : stems) EXPECT_NE(stem, "scan");
  EXPECT_NE(stems[0], "Relu");
  EXPECT_TRUE(stems[1].starts_with("a--b-")) << stems[1];
  // A name depends on the repository and those it meets, not on where it is in the list.
  EXPECT_EQ(stems_of({repository("a/b"), repository("a--b")})[0], stems[2]);
}

TEST(ReportFileStems, ANameMadeLikeAnotherOnesSuffixedNameStillGetsItsOwnFile) {
  const std::string suffixed = stems_of({repository("scan")})[0];  // "scan-" and a hash
  const std::vector<std::string> stems = stems_of({repository("scan"), repository(suffixed)});
  EXPECT_NE(stems[0], stems[1]);
}

TEST(ReportDirectory, AReportThatCannotBeWrittenLosesNoOther) {
  const fs::path dir = scratch_dir();
  ScanReport scan;
  scan.repositories = {repository("blocked"), repository("owner/relu", "v1")};
  fs::create_directories(dir / "out" / "blocked.txt");  // a directory where the report should go
  const std::vector<ReportWriteFailure> failures = write_report_directory(
      scan, dir / "out", [](const RepositoryReport& report) { return report.id + "\n"; }, "txt");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].file, dir / "out" / "blocked.txt");
  EXPECT_EQ(read_file(dir / "out" / "owner--relu@v1.txt"), "owner/relu\n");
  EXPECT_TRUE(fs::exists(dir / "out" / "scan.json"));
}

TEST(ReportDirectory, ARenderingFailureIsThatReportsFailureOnly) {
  const fs::path dir = scratch_dir();
  ScanReport scan;
  scan.repositories = {repository("bad"), repository("good")};
  auto render = [](const RepositoryReport& report) -> std::string {
    if (report.id == "bad") throw std::runtime_error("cannot render");
    return "ok\n";
  };
  const std::vector<ReportWriteFailure> failures = write_report_directory(scan, dir / "out", render, "txt");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].reason, "cannot render");
  EXPECT_EQ(read_file(dir / "out" / "good.txt"), "ok\n");
}

}  // namespace
}  // namespace kcheck::scan_test
