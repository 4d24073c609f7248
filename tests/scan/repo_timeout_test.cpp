// `kcheck scan --repo-timeout`: a repository whose audit runs past its budget
// is an error entry of the scan (it fails), and the scan goes on with the
// others. The budget is cooperative (checked between files, variants and
// rules); a zero budget makes it pass before the first check, so the test
// needs no slow input and no timing.
#include "tests/scan/scan_test_support.h"

namespace kcheck::scan_test {
namespace {

ScanReport scan_with_budget(const fs::path& root, std::optional<std::chrono::steady_clock::duration> budget) {
  const RuleRegistry rules = make_rule_registry();
  ScanOptions options;
  options.audit.threads = 2;
  options.repository_timeout = budget;
  return run_scan(discover_repositories({root}), load_policy("hub"), options, rules);
}

TEST(RepositoryTimeout, ARepositoryPastItsBudgetIsAnErrorEntryAndTheScanGoesOn) {
  const fs::path root = scratch_dir() / "hub";
  copy_fixture("clean_cpu_variants_from_template", root / "owner/clean");
  copy_fixture("kp002_numpy_import", root / "owner/numpy");

  const ScanReport timed_out = scan_with_budget(root, std::chrono::steady_clock::duration::zero());
  ASSERT_EQ(timed_out.repositories.size(), 2u);
  for (const RepositoryReport& repository : timed_out.repositories) {
    EXPECT_TRUE(repository.failed()) << repository.id;
    EXPECT_NE(repository.error.find("ran past its time budget of 0 s (--repo-timeout)"), std::string::npos)
        << repository.id << ": " << repository.error;
    EXPECT_TRUE(repository.report.findings.empty());
  }
  EXPECT_EQ(timed_out.failed_repositories(), 2);
  EXPECT_EQ(scan_report_to_json(timed_out)["repositories"][0]["verdict"], "fail");

  const ScanReport in_time = scan_with_budget(root, ScanOptions::kDefaultRepositoryTimeout);
  ASSERT_EQ(in_time.repositories.size(), 2u);
  EXPECT_EQ(in_time.repositories[0].id, "owner/clean");
  EXPECT_EQ(in_time.repositories[0].error, "");
  EXPECT_FALSE(in_time.repositories[0].failed());
  EXPECT_EQ(in_time.repositories[1].error, "");
  EXPECT_TRUE(in_time.repositories[1].failed()) << "KP002 still judged";
}

TEST(RepositoryTimeout, TheDefaultIsFiveMinutesAndNoneMeansNoBudget) {
  EXPECT_EQ(ScanOptions{}.repository_timeout, std::chrono::steady_clock::duration(std::chrono::seconds(300)));
  const fs::path root = scratch_dir() / "hub";
  copy_fixture("clean_cpu_variants_from_template", root / "owner/clean");
  const ScanReport unbounded = scan_with_budget(root, std::nullopt);
  ASSERT_EQ(unbounded.repositories.size(), 1u);
  EXPECT_FALSE(unbounded.repositories[0].failed()) << unbounded.repositories[0].error;
}

// A revision's judgement gets what is left of its own budget after its own
// collection (other revisions' collection never counts): the deadline names
// the whole budget, however little of it is left.
TEST(RepositoryTimeout, WhatIsLeftOfABudgetNamesTheWholeBudget) {
  const AuditDeadline spent = AuditDeadline::after(std::chrono::seconds(0), std::chrono::seconds(7));
  EXPECT_TRUE(spent.passed());
  try {
    spent.check();
    FAIL() << "no AuditTimeout";
  } catch (const AuditTimeout& timeout) {
    EXPECT_NE(std::string(timeout.what()).find("time budget of 7 s"), std::string::npos) << timeout.what();
  }
  EXPECT_FALSE(AuditDeadline::after(std::chrono::seconds(60), std::chrono::seconds(300)).passed());
}

}  // namespace
}  // namespace kcheck::scan_test
