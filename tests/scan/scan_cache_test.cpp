// The facts cache: a rescan analyses nothing, a changed file is analysed
// again, cached facts judge exactly like fresh ones, concurrent writers agree.
#include <sys/wait.h>

#include <cstdio>
#include <future>
#include <thread>

#include "tests/scan/scan_test_support.h"

namespace kcheck::scan_test {
namespace {

// Fixtures whose findings come from every kind of fact (ELF, Python, metadata and digest).
const std::vector<std::string> kMixedFixtures = {
    "clean_cpu_variants_from_template", "ke009_default_visibility_export", "kp003_match_statement",
    "km007_digest_does_not_match",      "ko001_fixed_registration_name",   "kp006_subprocess_at_import"};

fs::path make_scan_root(const fs::path& dir) {
  const fs::path root = dir / "root";
  for (const std::string& name : kMixedFixtures) copy_fixture(name, root / name);
  return root;
}

TEST(ScanCache, RescanOfUnchangedRepositoriesAnalysesNothing) {
  const fs::path dir = scratch_dir();
  const fs::path root = make_scan_root(dir);
  const ScanRun first = scan({root}, dir / "cache");
  // A cold scan analyses every file once and writes one entry per repository.
  const std::size_t files = first.stats.cache.facts_analysed + first.stats.cache.facts_reused;
  EXPECT_GT(first.stats.cache.facts_analysed, 0u);
  EXPECT_EQ(first.stats.cache.facts_reused, 0u);
  EXPECT_EQ(first.stats.cache.write_failures, 0u);
  EXPECT_EQ(first.stats.cache.entries_written, first.report.repositories.size());

  const ScanRun second = scan({root}, dir / "cache");
  EXPECT_EQ(second.stats.cache.facts_analysed, 0u);
  EXPECT_EQ(second.stats.cache.facts_reused, files);
  EXPECT_EQ(second.stats.cache.files_hashed, 0u);
  EXPECT_EQ(second.stats.cache.entries_written, 0u);
  EXPECT_EQ(to_json_text(second.report), to_json_text(first.report));
}

TEST(ScanCache, CachedFactsJudgeExactlyLikeAFreshAuditOnEveryFixture) {
  const fs::path dir = scratch_dir();
  const ScanRun cold = scan({KCHECK_TREE_FIXTURES_DIR}, dir / "cache");
  const ScanRun warm = scan({KCHECK_TREE_FIXTURES_DIR}, dir / "cache");
  ASSERT_GT(cold.report.repositories.size(), 30u);
  EXPECT_EQ(warm.stats.cache.facts_analysed, 0u);
  EXPECT_EQ(to_json_text(warm.report), to_json_text(cold.report));

  const RuleRegistry rules = make_rule_registry();
  const Policy policy = load_policy("hub");
  AuditOptions options;
  for (const RepositoryReport& repository : warm.report.repositories) {
    ASSERT_TRUE(repository.error.empty()) << repository.id << ": " << repository.error;
    Report fresh = run_audit(repository.path, policy, options, rules);
    EXPECT_EQ(report_to_json(repository.report).dump(), report_to_json(fresh).dump()) << repository.id;
  }
}

// A scan of the KE rules alone reads no optional ELF table (no namespaces,
// no debug sections, no device code); a full scan on the same cache must
// not judge KO001 or KE012 from those incomplete facts.
TEST(ScanCache, FactsReadForFewerRulesAreAnalysedAgainForMore) {
  const fs::path dir = scratch_dir();
  const fs::path root = make_scan_root(dir);
  const ScanRun elf_only = scan({root}, dir / "cache", {}, 2, CodeSelection{{"KE001"}, {}});
  EXPECT_GT(elf_only.stats.cache.facts_analysed, 0u);
  const ScanRun full = scan({root}, dir / "cache");
  const ScanRun fresh = scan({root}, dir / "fresh-cache");
  EXPECT_EQ(to_json_text(full.report), to_json_text(fresh.report));
  EXPECT_NE(to_json_text(full.report).find("\"KO001\""), std::string::npos);
  EXPECT_GT(full.stats.cache.facts_analysed, 0u);  // the native modules, again
}

TEST(ScanCache, AChangedFileIsAnalysedAgain) {
  const fs::path dir = scratch_dir();
  const fs::path root = make_scan_root(dir);
  const ScanRun first = scan({root}, dir / "cache");
  const fs::path init =
      root / "clean_cpu_variants_from_template/build/torch213-cxx11-cpu-x86_64-linux/relu/__init__.py";
  ASSERT_TRUE(fs::exists(init));
  append_to_file(init, "\nmatch x:\n    case 1:\n        pass\n");

  const ScanRun second = scan({root}, dir / "cache");
  EXPECT_EQ(second.stats.cache.facts_analysed, 1u);
  EXPECT_EQ(second.stats.cache.facts_reused, first.stats.cache.facts_analysed + first.stats.cache.facts_reused - 1);
  for (const RepositoryReport& repository : second.report.repositories) {
    if (repository.id != "clean_cpu_variants_from_template") continue;
    std::set<std::string> codes;
    for (const Finding& finding : repository.report.findings) codes.insert(finding.code);
    EXPECT_TRUE(codes.contains("KP003")) << "the new match statement is seen";
    EXPECT_TRUE(codes.contains("KM007")) << "the digest no longer matches";
  }
}

TEST(ScanCache, ACorruptEntryIsAMissNotAnError) {
  const fs::path dir = scratch_dir();
  const fs::path root = make_scan_root(dir);
  const ScanRun first = scan({root}, dir / "cache");
  std::size_t truncated = 0;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(dir / "cache" / "repositories")) {
    if (!entry.is_regular_file()) continue;
    fs::resize_file(entry.path(), fs::file_size(entry.path()) / 2);
    ++truncated;
  }
  ASSERT_GT(truncated, 0u);
  const ScanRun second = scan({root}, dir / "cache");
  // Every entry was cut in half, so every file is analysed again.
  EXPECT_EQ(second.stats.cache.entries_rejected, truncated);
  EXPECT_EQ(second.stats.cache.facts_reused, 0u);
  EXPECT_EQ(second.stats.cache.facts_analysed + second.stats.cache.facts_reused,
            first.stats.cache.facts_analysed + first.stats.cache.facts_reused);
  EXPECT_EQ(to_json_text(second.report), to_json_text(first.report));
}

TEST(ScanCache, ThreadsSharingACacheProduceIdenticalCorrectReports) {
  const fs::path dir = scratch_dir();
  const fs::path root = make_scan_root(dir);
  const std::string uncached = to_json_text(scan({root}, "").report);
  std::vector<std::future<ScanRun>> runs;
  for (int i = 0; i < 4; ++i)
    runs.push_back(std::async(std::launch::async, [&] { return scan({root}, dir / "shared-cache"); }));
  for (auto& run : runs) EXPECT_EQ(to_json_text(run.get().report), uncached);
  EXPECT_EQ(scan({root}, dir / "shared-cache").stats.cache.facts_analysed, 0u);
  EXPECT_TRUE(fs::is_empty(dir / "shared-cache" / "tmp")) << "no half-written entry is left behind";
}

TEST(ScanCache, ProcessesSharingACacheProduceIdenticalCorrectReports) {
  const fs::path dir = scratch_dir();
  const fs::path root = make_scan_root(dir);
  wait_until_settled();  // the processes use the default racy window
  const std::string command = std::string("'") + KCHECK_EXECUTABLE + "' scan --format json --cache '" +
                              (dir / "cache").string() + "' '" + root.string() + "'";
  // Started together, both writing the cold cache at once.
  const std::string both = "(" + command + " > '" + (dir / "a.json").string() + "' & " + command + " > '" +
                           (dir / "b.json").string() + "' & wait)";
  ASSERT_EQ(std::system(both.c_str()), 0);
  const std::string expected = scan_report_to_json(scan({root}, "").report).dump(2) + "\n";
  EXPECT_EQ(read_file(dir / "a.json"), expected);
  EXPECT_EQ(read_file(dir / "b.json"), expected);
  EXPECT_EQ(scan({root}, dir / "cache").stats.cache.facts_analysed, 0u);
}

TEST(ScanCache, NoCacheDirectoryKeepsNothingAndHashesEachFileOnce) {
  const fs::path dir = scratch_dir();
  const fs::path root = make_scan_root(dir);
  const ScanRun first = scan({root}, "");
  const ScanRun second = scan({root}, "");
  EXPECT_EQ(second.stats.cache.facts_reused, 0u);
  EXPECT_EQ(second.stats.cache.facts_analysed, first.stats.cache.facts_analysed);
  // Every analysed or digest-listed file is hashed once, though the digest check and the cache key both need it.
  std::size_t readable_files = 0;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(root))
    if (entry.is_regular_file() && entry.path().filename() != "metadata.json" &&
        entry.path().filename() != "expected.toml")
      ++readable_files;
  EXPECT_LE(first.stats.cache.files_hashed, readable_files);
}

}  // namespace
}  // namespace kcheck::scan_test
