// `kcheck run`: worker isolation with deliberately bad variants (fixtures.cmake),
// the dispatcher audit (KO006), KD005 and the bounded process runner.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "checker/audit/audit.h"
#include "checker/core/bounded_process.h"
#include "checker/harness/harness.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kCases = {"good",          "segv_init",        "abort_init",
                                         "exit_init",     "hang_init",        "flood_init",
                                         "undefined_symbol", "foreign_namespace", "aten_override",
                                         "fallback"};

// Every fixture variant in one tree, each named after its case, run in one go:
// one bad variant must not stop the others.
struct HarnessRun {
  TreeFacts tree;
  Report report;
  std::map<std::string, std::vector<Finding>> findings;  // by case
  const HarnessFacts& facts(const std::string& name) const {
    for (const VariantFacts& variant : tree.variants)
      if (variant.directory_name == name) return *variant.harness;
    throw std::runtime_error("no variant " + name);
  }
};

const HarnessRun& harness_run() {
  static const HarnessRun run = [] {
    HarnessRun result;
    AuditOptions options;
    options.selection.select = {"KD", "KO006"};
    for (const std::string& name : kCases) {
      TreeFacts one = collect_facts(fs::path(KCHECK_HARNESS_FIXTURES_DIR) / name, options);
      if (result.tree.variants.empty()) result.tree = one, result.tree.variants.clear();
      for (VariantFacts& variant : one.variants) {
        variant.directory_name = name;
        result.tree.variants.push_back(std::move(variant));
      }
    }
    HarnessOptions harness;
    harness.timeout = std::chrono::seconds(5);
    run_harness(result.tree, harness);
    RuleRegistry rules = make_rule_registry();
    Policy policy = load_policy("hub");
    result.report = judge(result.tree, policy, options, rules);
    for (const Finding& finding : result.report.findings) result.findings[finding.variant].push_back(finding);
    return result;
  }();
  return run;
}

void expect_one(const std::string& name, const std::string& code, const std::vector<std::string>& fragments) {
  const auto& findings = harness_run().findings;
  auto found = findings.find(name);
  ASSERT_NE(found, findings.end()) << name << ": no finding";
  ASSERT_EQ(found->second.size(), 1u) << name << ": " << found->second.front().message;
  EXPECT_EQ(found->second.front().code, code) << found->second.front().message;
  for (const std::string& fragment : fragments)
    EXPECT_NE(found->second.front().message.find(fragment), std::string::npos)
        << name << ": '" << fragment << "' not in: " << found->second.front().message;
}

class Harness : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(KCHECK_HARNESS_FIXTURES_DIR).empty()) GTEST_SKIP() << "no kcheck_worker (no Torch in .venv)";
  }
};

TEST_F(Harness, EveryFixtureVariantWasRun) {
  ASSERT_EQ(harness_run().tree.variants.size(), kCases.size());
  for (const VariantFacts& variant : harness_run().tree.variants) {
    ASSERT_TRUE(variant.harness) << variant.directory_name;
    EXPECT_EQ(variant.harness->skipped_because, "") << variant.directory_name;
    EXPECT_EQ(variant.harness->harness_problem, "") << variant.directory_name;
    EXPECT_TRUE(variant.harness->worker.started) << variant.directory_name;
  }
}

TEST_F(Harness, GoodVariantLoadsCleanlyAndRegistersItsOwnOp) {
  EXPECT_FALSE(harness_run().findings.contains("good"));
  const HarnessFacts& facts = harness_run().facts("good");
  EXPECT_TRUE(facts.loaded);
  EXPECT_EQ(facts.own_namespace, "_good_cpu_abc123");
  ASSERT_EQ(facts.new_ops.size(), 1u);
  EXPECT_EQ(facts.new_ops[0].name, "_good_cpu_abc123::identity");
  EXPECT_TRUE(facts.changed_ops.empty());
  EXPECT_TRUE(facts.new_fallbacks.empty());
}

TEST_F(Harness, CrashInStaticInitialiserIsKD001) { expect_one("segv_init", "KD001", {"SIGSEGV", "static initialiser"}); }
TEST_F(Harness, AbortAtLoadIsKD001) { expect_one("abort_init", "KD001", {"SIGABRT"}); }
TEST_F(Harness, ExitAtLoadIsKD001) { expect_one("exit_init", "KD001", {"exit status 0", "calls exit"}); }
TEST_F(Harness, UndefinedSymbolIsKD001WithTheLoaderMessage) {
  expect_one("undefined_symbol", "KD001", {"kcheck_fixture_missing_symbol", "undefined symbol"});
}
TEST_F(Harness, HangAtLoadIsKD003) {
  expect_one("hang_init", "KD003", {"hung while loading", "timeout"});
  EXPECT_TRUE(harness_run().facts("hang_init").worker.timed_out);
}

TEST_F(Harness, OutputFloodIsCappedAndTheVariantStillLoads) {
  EXPECT_FALSE(harness_run().findings.contains("flood_init"));
  const HarnessFacts& facts = harness_run().facts("flood_init");
  EXPECT_TRUE(facts.loaded);
  EXPECT_GE(facts.worker.output_bytes, 32u * 1024 * 1024);
  EXPECT_LE(facts.worker.output.size(), HarnessOptions{}.max_output);
  EXPECT_TRUE(facts.worker.output_truncated);
}

TEST_F(Harness, SecondNamespaceIsKO006) {
  expect_one("foreign_namespace", "KO006", {"'kcheck_foreign_ns'", "kcheck_foreign_ns::leak", "_foreign_namespace_cpu_abc123"});
}
TEST_F(Harness, AtenOverrideIsKO006) { expect_one("aten_override", "KO006", {"'aten'", "aten::relu", "overriding"}); }
TEST_F(Harness, BackendFallbackIsKO006) { expect_one("fallback", "KO006", {"fallback", "PrivateUse3"}); }

TEST(HarnessRules, SilentWithoutDynamicFacts) {
  if (std::string(KCHECK_HARNESS_FIXTURES_DIR).empty()) GTEST_SKIP();
  AuditOptions options;
  options.selection.select = {"KD", "KO006"};
  Report report = run_audit(fs::path(KCHECK_HARNESS_FIXTURES_DIR) / "segv_init", load_policy("hub"), options,
                            make_rule_registry());
  EXPECT_TRUE(report.findings.empty());
}

TEST(HarnessRunnable, OtherTorchAbiOrBackendIsKD005WithWhatIsNeeded) {
  LocalTorch torch;
  torch.available = true;
  torch.version = *Version::parse("2.11.0");
  torch.version_text = "2.11.0";
  torch.backends = {"cpu"};
  VariantFacts variant;
  variant.name = parse_variant_name("torch211-cxx11-cpu-x86_64-linux");
  EXPECT_EQ(why_not_runnable(variant, torch), "");
  variant.name = parse_variant_name("torch212-cxx11-cu130-x86_64-linux");
  std::string why = why_not_runnable(variant, torch);
  EXPECT_NE(why.find("Torch 2.12"), std::string::npos) << why;
  EXPECT_NE(why.find("cuda backend"), std::string::npos) << why;
  torch.available = false;
  torch.problem = "no worker";
  EXPECT_EQ(why_not_runnable(variant, torch), "no worker");
}

TEST(BoundedProcess, DecodesExitSignalAndTimeout) {
  ProcessLimits limits{std::chrono::milliseconds(2000), 1024};
  WorkerEnd exited = run_bounded({"sh", "-c", "echo hi; exit 3"}, limits);
  EXPECT_EQ(exited.exit_code, 3);
  EXPECT_EQ(exited.output, "hi\n");
  WorkerEnd killed = run_bounded({"sh", "-c", "kill -SEGV $$"}, limits);
  EXPECT_EQ(killed.signal, SIGSEGV);
  EXPECT_NE(describe_signal(killed.signal).find("SIGSEGV"), std::string::npos);
  limits.timeout = std::chrono::milliseconds(300);
  WorkerEnd hung = run_bounded({"sh", "-c", "exec >&-; exec 2>&-; sleep 30"}, limits);
  EXPECT_TRUE(hung.timed_out);
  WorkerEnd flood = run_bounded({"sh", "-c", "yes | head -c 1000000"}, {std::chrono::milliseconds(5000), 1024});
  EXPECT_EQ(flood.output_bytes, 1000000u);
  EXPECT_EQ(flood.output.size(), 1024u);
  EXPECT_TRUE(flood.output_truncated);
}

}  // namespace
}  // namespace kcheck
