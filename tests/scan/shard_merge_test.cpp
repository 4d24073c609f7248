// Discovery of repositories, shard partition, and merge of shard reports.
#include <set>

#include "tests/scan/scan_test_support.h"

namespace kcheck::scan_test {
namespace {

std::vector<RepositoryInput> named(const std::vector<std::string>& ids) {
  std::vector<RepositoryInput> repositories;
  for (const std::string& id : ids) repositories.push_back({id, "", "/nowhere/" + id});
  return repositories;
}

std::vector<std::string> many_ids() {
  std::vector<std::string> ids;
  for (int i = 0; i < 200; ++i) ids.push_back("owner" + std::to_string(i % 7) + "/kernel-" + std::to_string(i));
  return ids;
}

TEST(Shard, ParsesIndexOverCountAndRejectsTheRest) {
  EXPECT_EQ(parse_shard("0/4"), (Shard{0, 4}));
  EXPECT_EQ(parse_shard("3/4"), (Shard{3, 4}));
  for (const char* bad : {"4/4", "1/0", "-1/4", "1", "a/b", "1/4x", "/4", "1/"})
    EXPECT_THROW(parse_shard(bad), std::invalid_argument) << bad;
}

TEST(Shard, ShardsAreDisjointAndTheirUnionIsTheWhole) {
  const std::vector<RepositoryInput> all = named(many_ids());
  for (unsigned count : {1u, 2u, 3u, 7u, 16u}) {
    std::multiset<std::string> union_of_shards;
    for (unsigned index = 0; index < count; ++index)
      for (const RepositoryInput& repository : select_shard(all, {index, count})) union_of_shards.insert(repository.id);
    std::multiset<std::string> whole;
    for (const RepositoryInput& repository : all) whole.insert(repository.id);
    EXPECT_EQ(union_of_shards, whole) << count << " shards";
  }
}

TEST(Shard, AssignmentDependsOnTheIdAloneNotOnOrderOrNeighbours) {
  const std::vector<std::string> ids = many_ids();
  std::vector<std::string> reversed(ids.rbegin(), ids.rend());
  std::vector<std::string> fewer(ids.begin(), ids.begin() + 50);
  for (const std::string& id : fewer) {
    const unsigned shard = shard_of(id, 5);
    auto in = [&](const std::vector<std::string>& list) {
      for (const RepositoryInput& repository : select_shard(named(list), {shard, 5}))
        if (repository.id == id) return true;
      return false;
    };
    EXPECT_TRUE(in(ids) && in(reversed) && in(fewer)) << id;
  }
  EXPECT_EQ(shard_of("kernels-community/relu", 8), shard_of("kernels-community/relu", 8));
  std::set<unsigned> used;
  for (const std::string& id : ids) used.insert(shard_of(id, 4));
  EXPECT_EQ(used.size(), 4u) << "200 ids reach every one of 4 shards";
}

TEST(Discovery, FindsRepositoriesBelowRootsWithRevisionsAndSkipsHiddenDirectories) {
  const fs::path dir = scratch_dir();
  for (const char* repository : {"owner/relu@v1", "owner/relu@v2", "owner/gelu", ".hidden/x", "single", "a@b/c"})
    fs::create_directories(dir / "root" / repository / "build");
  fs::create_directories(dir / "root/owner/gelu/build/nested/build");  // never looked for inside a repository
  const std::vector<RepositoryInput> found = discover_repositories({dir / "root"});
  std::vector<std::string> names;
  for (const RepositoryInput& repository : found) names.push_back(repository.id + "|" + repository.revision);
  // Only a repository directory's own name carries a revision.
  EXPECT_EQ(names, (std::vector<std::string>{"a@b/c|", "owner/gelu|", "owner/relu|v1", "owner/relu|v2", "single|"}));

  const std::vector<RepositoryInput> direct = discover_repositories({dir / "root/owner/relu@v2"});
  ASSERT_EQ(direct.size(), 1u);
  EXPECT_EQ(direct[0].id, "relu");
  EXPECT_EQ(direct[0].revision, "v2");
  EXPECT_THROW(discover_repositories({dir / "root/owner/relu@v2", dir / "root/owner/relu@v2/"}), std::invalid_argument);
  EXPECT_THROW(discover_repositories({dir / "missing"}), std::runtime_error);
}

fs::path fixtures_root() { return KCHECK_TREE_FIXTURES_DIR; }

TEST(Merge, MergedShardReportsEqualTheUnshardedReport) {
  const fs::path dir = scratch_dir();
  const ScanReport whole = scan({fixtures_root()}, dir / "cache").report;
  for (unsigned count : {2u, 3u}) {
    std::vector<ScanReport> shards;
    std::size_t repositories = 0;
    for (unsigned index = 0; index < count; ++index) {
      shards.push_back(scan({fixtures_root()}, dir / "cache", Shard{index, count}).report);
      // Each shard's document goes through JSON, as between array-job tasks.
      shards.back() = scan_report_from_json(nlohmann::json::parse(to_json_text(shards.back())));
      repositories += shards.back().repositories.size();
    }
    EXPECT_EQ(repositories, whole.repositories.size());
    EXPECT_EQ(to_json_text(merge_scan_reports(shards)), to_json_text(whole)) << count << " shards";
  }
}

TEST(Merge, RefusesMissingDuplicateOrForeignShards) {
  const fs::path dir = scratch_dir();
  std::vector<ScanReport> shards;
  for (unsigned index = 0; index < 3; ++index)
    shards.push_back(scan({fixtures_root()}, dir / "cache", Shard{index, 3}).report);
  EXPECT_THROW(merge_scan_reports({shards[0], shards[2]}), std::invalid_argument);
  EXPECT_THROW(merge_scan_reports({shards[0], shards[1], shards[1], shards[2]}), std::invalid_argument);
  ScanReport other_policy = shards[1];
  other_policy.policy_name = "hub-legacy";
  EXPECT_THROW(merge_scan_reports({shards[0], other_policy, shards[2]}), std::invalid_argument);
  ScanReport unsharded = scan({fixtures_root()}, dir / "cache").report;
  EXPECT_THROW(merge_scan_reports({unsharded, unsharded}), std::invalid_argument) << "each repository once";
}

TEST(ScanReportJson, RoundTripsAndNamesTheVerdicts) {
  const fs::path dir = scratch_dir();
  const ScanReport scan_report = scan({fixtures_root()}, dir / "cache").report;
  const nlohmann::json json = scan_report_to_json(scan_report);
  EXPECT_EQ(json["kind"], "kcheck-scan");
  EXPECT_EQ(json["summary"]["repositories"], scan_report.repositories.size());
  EXPECT_GT(json["summary"]["failed"].get<int>(), 0);
  EXPECT_EQ(to_json_text(scan_report_from_json(json)), json.dump(1));
  EXPECT_THROW(scan_report_from_json(nlohmann::json::object()), std::runtime_error);
  EXPECT_EQ(scan_report.gate_status(), 1);
}

// Issue #28 items 11 and 12: a shard whose summary claims no error beside an
// error finding fails the merge's verdict, and a repository id written into
// the Markdown summary cannot forge a row or carry HTML.
TEST(Merge, RecountsEachShardsFindingsAndEscapesRepositoryIdsInMarkdown) {
  const fs::path dir = scratch_dir();
  const ScanReport scan_report = scan({fixtures_root()}, dir / "cache").report;
  nlohmann::json json = scan_report_to_json(scan_report);
  bool forged = false;
  for (nlohmann::json& repository : json["repositories"]) {
    if (!repository.contains("report") || repository["report"]["summary"]["errors"].get<int>() == 0) continue;
    repository["report"]["summary"]["errors"] = 0;  // the shard's claim, beside its error findings
    repository["id"] = "evil | pass | 0 | 0 | 0 |\n<script>x</script>";
    forged = true;
    break;
  }
  ASSERT_TRUE(forged) << "the fixtures hold a repository with an error";
  const ScanReport merged = merge_scan_reports({scan_report_from_json(json)});
  EXPECT_EQ(merged.failed_repositories(), scan_report.failed_repositories()) << "recounted, not believed";
  const std::string markdown = render_scan_summary(merged, true);
  EXPECT_EQ(markdown.find("<script>"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("evil | pass"), std::string::npos) << "a forged row: " << markdown;
  EXPECT_NE(markdown.find("evil \\| pass"), std::string::npos) << markdown;
}

// Issue #28: a shard of a scan that applied no repository's config (the
// Hub's, --security) cannot hide an error by marking it suppressed.
TEST(Merge, AFindingAShardMarksSuppressedCountsWhereTheScanAppliedNoRepositorysConfig) {
  const fs::path dir = scratch_dir();
  const ScanReport scan_report = scan({fixtures_root()}, dir / "cache").report;
  nlohmann::json json = scan_report_to_json(scan_report);
  json["repository_config_applied"] = false;
  bool forged = false;
  for (nlohmann::json& repository : json["repositories"]) {
    if (!repository.contains("report")) continue;
    for (nlohmann::json& finding : repository["report"]["findings"])
      if (finding["severity"] == "error") {
        finding["suppressed"] = true;
        finding["suppression_reason"] = "trust me";
        forged = true;
      }
  }
  ASSERT_TRUE(forged) << "the fixtures hold a repository with an error";
  EXPECT_EQ(merge_scan_reports({scan_report_from_json(json)}).failed_repositories(), scan_report.failed_repositories());
  // Where the scan did apply the repositories' configs, their suppressions stand.
  json["repository_config_applied"] = true;
  EXPECT_EQ(merge_scan_reports({scan_report_from_json(json)}).failed_repositories(), 0);
}

}  // namespace
}  // namespace kcheck::scan_test
