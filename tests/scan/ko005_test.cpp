// KO005: two revisions of one repository whose different builds register the same namespace.
#include "tests/scan/scan_test_support.h"

namespace kcheck::scan_test {
namespace {

const char* kVariant = "build/torch213-cxx11-cpu-x86_64-linux";

std::vector<Finding> ko005_of(const ScanReport& scan, const std::string& revision) {
  std::vector<Finding> found;
  for (const RepositoryReport& repository : scan.repositories)
    if (repository.revision == revision)
      for (const Finding& finding : repository.report.findings)
        if (finding.code == "KO005") found.push_back(finding);
  return found;
}

// Two revisions of the clean fixture; `change` edits revision v2 afterwards.
fs::path two_revisions(const fs::path& dir, bool change) {
  const fs::path root = dir / "root" / "owner";
  copy_fixture("clean_cpu_variants_from_template", root / "relu@v1");
  copy_fixture("clean_cpu_variants_from_template", root / "relu@v2");
  if (change) append_to_file(root / "relu@v2" / kVariant / "relu/__init__.py", "\n# revision 2\n");
  return dir / "root";
}

TEST(KO005, DifferentBuildsOfTwoRevisionsRegisteringOneNamespaceAreFlaggedInBoth) {
  const fs::path dir = scratch_dir();
  const ScanReport scan_report = scan({two_revisions(dir, true)}, dir / "cache").report;
  ASSERT_EQ(scan_report.repositories.size(), 2u);
  const std::vector<Finding> v1 = ko005_of(scan_report, "v1");
  const std::vector<Finding> v2 = ko005_of(scan_report, "v2");
  // Only the changed variant clashes: its twin in v1 registers the namespace with other bytes.
  ASSERT_EQ(v1.size(), 1u);
  ASSERT_EQ(v2.size(), 1u);
  EXPECT_EQ(v2.front().severity, Severity::error);
  EXPECT_EQ(v2.front().variant, "torch213-cxx11-cpu-x86_64-linux");
  EXPECT_EQ(v1.front().variant, "torch213-cxx11-cpu-x86_64-linux");
  EXPECT_NE(v2.front().message.find("_relu_cpu_0a1b2c3"), std::string::npos) << v2.front().message;
  EXPECT_NE(v2.front().message.find("revision `v1`"), std::string::npos) << v2.front().message;
  EXPECT_NE(v1.front().message.find("revision `v2`"), std::string::npos) << v1.front().message;
  EXPECT_EQ(scan_report.gate_status(), 1);
}

TEST(KO005, IdenticalRebuildsAreNotFlagged) {
  const fs::path dir = scratch_dir();
  const ScanReport scan_report = scan({two_revisions(dir, false)}, dir / "cache").report;
  ASSERT_EQ(scan_report.repositories.size(), 2u);
  EXPECT_TRUE(ko005_of(scan_report, "v1").empty());
  EXPECT_TRUE(ko005_of(scan_report, "v2").empty());
  EXPECT_EQ(scan_report.gate_status(), 0);
}

TEST(KO005, OneRevisionAloneIsNeverFlagged) {
  const fs::path dir = scratch_dir();
  copy_fixture("clean_cpu_variants_from_template", dir / "root" / "relu@v1");
  const ScanReport scan_report = scan({dir / "root"}, dir / "cache").report;
  EXPECT_TRUE(ko005_of(scan_report, "v1").empty());
}

TEST(KO005, JudgesOnlyTheBuildsOfOtherRevisions) {
  TreeFacts tree;
  tree.revision = "b";
  tree.revision_builds = {{"a", "cpu", "digest-1", {"_relu_cpu_x"}},
                          {"b", "cpu", "digest-2", {"_relu_cpu_x"}},
                          {"b", "cuda", "digest-3", {"_relu_cuda_x"}},
                          {"c", "cuda", "digest-3", {"_relu_cuda_x"}},
                          {"c", "rocm", "digest-4", {"_relu_rocm_x"}}};
  const RuleRegistry rules = make_rule_registry();
  const Policy policy = load_policy("hub");
  AuditOptions options;
  options.selection.select = {"KO005"};
  const Report report = judge(tree, policy, options, rules);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].variant, "cpu");
  EXPECT_NE(report.findings[0].message.find("revision `a`"), std::string::npos);
}

}  // namespace
}  // namespace kcheck::scan_test
