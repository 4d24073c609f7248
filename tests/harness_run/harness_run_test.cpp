// `kcheck run`: worker isolation with deliberately bad variants (fixtures.cmake)
// and the dispatcher audit (KO006). Every test judges one shared run of all
// the fixture variants (a minute of worker processes), so the suite is one
// CTest entry; its main() makes a skip visible: when the suite cannot run
// (no kcheck_worker) or a test skipped, the entry reads "Skipped", never
// "Passed" (tests/CMakeLists.txt, SKIP_RETURN_CODE).
#include <unistd.h>
#include <gtest/gtest.h>

#include "tests/support/live_processes.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "checker/audit/audit.h"
#include "checker/process/bounded_process.h"
#include "checker/harness/harness.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kCases = {"good",
                                         "segv_init",
                                         "abort_init",
                                         "exit_init",
                                         "hang_init",
                                         "flood_init",
                                         "undefined_symbol",
                                         "foreign_namespace",
                                         "aten_override",
                                         "fallback",
                                         "wrong_result",
                                         "guard_overrun",
                                         "partial_write",
                                         "abort_in_op",
                                         "cuda_only_op",
                                         "python_import_fails",
                                         "fork_init",
                                         "chdir_init",
                                         "leak_in_op",
                                         "fork_bomb_init",
                                         "setsid_daemon_init",
                                         "fill_disk_init",
                                         "fill_scratch_init",
                                         "write_outside_init",
                                         "float32_only",
                                         "float32_only_std",
                                         "refuses_some_sizes"};

// Outside every scratch directory: where setsid_daemon_init's daemon and
// write_outside_init write, if they can.
const fs::path kDaemonMarker = fs::path(KCHECK_BINARY_DIR) / "harness-daemon.marker";
const fs::path kOutsideFile = fs::path(KCHECK_BINARY_DIR) / "harness-outside.file";
// In the shared /tmp, which the containment captures: one name per test process.
const fs::path kSharedTmpFile = fs::path("/tmp") / ("kcheck-harness-outside-" + std::to_string(::getpid()) + ".file");

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
      TreeFacts one = collect_facts(fs::path(KCHECK_HARNESS_FIXTURES_DIR) / name, options, make_rule_registry());
      if (result.tree.variants.empty()) result.tree = one, result.tree.variants.clear();
      for (VariantFacts& variant : one.variants) {
        variant.directory_name = name;
        result.tree.variants.push_back(std::move(variant));
      }
    }
    fs::remove(kDaemonMarker);
    fs::remove(kOutsideFile);
    fs::remove(kSharedTmpFile);
    ::setenv("KCHECK_TEST_DAEMON_MARKER", kDaemonMarker.c_str(), 1);
    ::setenv("KCHECK_TEST_OUTSIDE_FILE", kOutsideFile.c_str(), 1);
    ::setenv("KCHECK_TEST_SHARED_TMP_FILE", kSharedTmpFile.c_str(), 1);
    HarnessOptions harness;
    harness.worker = KCHECK_TEST_WORKER_PATH;  // the test binary has no worker beside it
    harness.timeout = std::chrono::seconds(20);
    harness.max_file_size = 8u << 20;  // fill_disk_init writes 64 MiB
    harness.seed = 4242;
    harness.python = KCHECK_VENV_PYTHON;
    harness.pass_environment = {"KCHECK_TEST_DAEMON_MARKER", "KCHECK_TEST_OUTSIDE_FILE", "KCHECK_TEST_SHARED_TMP_FILE"};
    run_harness(result.tree, harness);
    RuleRegistry rules = make_rule_registry();
    Policy policy = load_policy("hub");
    result.report = judge(result.tree, policy, options, rules);
    for (const Finding& finding : result.report.findings) result.findings[finding.variant].push_back(finding);
    return result;
  }();
  return run;
}

// A case's findings other than KD007 (an op not verified), which
// Harness.EveryOpWithoutAReferenceIsKD007 checks for every case at once.
std::vector<Finding> findings_besides_kd007(const std::string& name) {
  std::vector<Finding> found;
  auto all = harness_run().findings.find(name);
  if (all == harness_run().findings.end()) return found;
  for (const Finding& finding : all->second)
    if (finding.code != "KD007") found.push_back(finding);
  return found;
}

void expect_one(const std::string& name, const std::string& code, const std::vector<std::string>& fragments) {
  const std::vector<Finding> findings = findings_besides_kd007(name);
  ASSERT_FALSE(findings.empty()) << name << ": no finding";
  ASSERT_EQ(findings.size(), 1u) << name << ": " << findings.front().message;
  EXPECT_EQ(findings.front().code, code) << findings.front().message;
  for (const std::string& fragment : fragments)
    EXPECT_NE(findings.front().message.find(fragment), std::string::npos)
        << name << ": '" << fragment << "' not in: " << findings.front().message;
}

class Harness : public ::testing::Test {};

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
  EXPECT_EQ(findings_besides_kd007("good").size(), 0u);
  const HarnessFacts& facts = harness_run().facts("good");
  EXPECT_TRUE(facts.loaded);
  EXPECT_EQ(facts.own_namespace, "_good_cpu_abc123");
  ASSERT_EQ(facts.new_ops.size(), 1u);
  EXPECT_EQ(facts.new_ops[0].name, "_good_cpu_abc123::identity");
  EXPECT_TRUE(facts.changed_ops.empty());
  EXPECT_TRUE(facts.new_fallbacks.empty());
}

TEST_F(Harness, CrashInStaticInitialiserIsKD001) {
  expect_one("segv_init", "KD001", {"SIGSEGV", "static initialiser"});
}
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
  EXPECT_EQ(findings_besides_kd007("flood_init").size(), 0u);
  const HarnessFacts& facts = harness_run().facts("flood_init");
  EXPECT_TRUE(facts.loaded);
  EXPECT_GE(facts.worker.output_bytes, 32u * 1024 * 1024);
  EXPECT_LE(facts.worker.output.size(), HarnessOptions{}.max_output);
  EXPECT_TRUE(facts.worker.output_truncated);
}

TEST_F(Harness, SecondNamespaceIsKO006) {
  expect_one("foreign_namespace", "KO006",
             {"'kcheck_foreign_ns'", "kcheck_foreign_ns::leak", "_foreign_namespace_cpu_abc123"});
}
TEST_F(Harness, AtenOverrideIsKO006) { expect_one("aten_override", "KO006", {"'aten'", "aten::relu", "overriding"}); }
TEST_F(Harness, BackendFallbackIsKO006) { expect_one("fallback", "KO006", {"fallback", "PrivateUse3"}); }

std::vector<Finding> findings_of(const std::string& name) {
  auto found = harness_run().findings.find(name);
  return found == harness_run().findings.end() ? std::vector<Finding>{} : found->second;
}

TEST_F(Harness, GoodVariantsOpsRanAndItsPackageImported) {
  const HarnessFacts& facts = harness_run().facts("good");
  EXPECT_TRUE(facts.ops_finished);
  ASSERT_EQ(facts.ops.size(), 1u);
  EXPECT_EQ(facts.ops[0].spec, "") << "identity has no spec: smoke call only";
  EXPECT_TRUE(facts.ops[0].smoke_called);
  EXPECT_EQ(facts.ops[0].smoke_error, "");
  ASSERT_TRUE(facts.python_import);
  EXPECT_TRUE(facts.python_import->imported) << facts.python_import->error << facts.python_import->skipped_because;
}

TEST_F(Harness, SlightlyWrongOpIsKD002ForTheDtypesItsErrorExceeds) {
  std::vector<Finding> findings = findings_of("wrong_result");
  ASSERT_FALSE(findings.empty());
  std::set<std::string> dtypes;
  for (const Finding& finding : findings) {
    EXPECT_EQ(finding.code, "KD002") << finding.message;
    EXPECT_EQ(finding.location.symbol, "_wrong_result_cpu_abc123::silu");
    EXPECT_NE(finding.message.find("seed 4242"), std::string::npos) << finding.message;
    EXPECT_NE(finding.message.find("max abs error"), std::string::npos) << finding.message;
    for (const char* dtype : {"float32", "float16", "bfloat16"})
      if (finding.message.find(std::string(" ") + dtype + " ") != std::string::npos) dtypes.insert(dtype);
  }
  EXPECT_EQ(dtypes, (std::set<std::string>{"float16", "float32"})) << "0.5% is within bfloat16's tolerance";
  const HarnessFacts& facts = harness_run().facts("wrong_result");
  ASSERT_EQ(facts.ops.size(), 1u);
  EXPECT_EQ(facts.ops[0].checks.size(), 6u) << "3 dtypes x small, medium";
}

TEST_F(Harness, WritingPastTheOutputIsKD003FromTheGuardRegion) {
  std::vector<Finding> findings = findings_of("guard_overrun");
  ASSERT_EQ(findings.size(), 6u) << "every dtype and size";
  for (const Finding& finding : findings) {
    EXPECT_EQ(finding.code, "KD003") << finding.message;
    EXPECT_NE(finding.message.find("wrote outside its output 'out'"), std::string::npos) << finding.message;
  }
}

TEST_F(Harness, LeavingPartOfTheOutputUnwrittenIsKD002NamingIt) {
  std::vector<Finding> findings = findings_of("partial_write");
  ASSERT_EQ(findings.size(), 6u) << "every dtype and size";
  for (const Finding& finding : findings) {
    EXPECT_EQ(finding.code, "KD002") << finding.message;
    EXPECT_EQ(finding.severity, Severity::error);
    EXPECT_EQ(finding.location.symbol, "_partial_write_cpu_abc123::relu");
    EXPECT_NE(finding.message.find("left elements of 'out' unwritten (NaN poison remains)"), std::string::npos)
        << finding.message;
  }
}

TEST_F(Harness, AbortInAnOpIsKD003NamingTheCall) {
  expect_one("abort_in_op", "KD003", {"SIGABRT", "_abort_in_op_cpu_abc123::relu float32"});
}

TEST_F(Harness, OpWithoutAKernelForTheBackendIsKD004) {
  expect_one("cuda_only_op", "KD004", {"_cuda_only_op_cpu_abc123::gelu", "no kernel for the cpu backend"});
}

TEST_F(Harness, FailingPythonImportIsKD006) {
  expect_one("python_import_fails", "KD006", {"_ops_that_do_not_exist", "loads"});
}

// A variant whose ops all ran and passed.
void expect_ops_checked(const std::string& name) {
  const HarnessFacts& facts = harness_run().facts(name);
  EXPECT_FALSE(facts.worker.timed_out) << name;
  EXPECT_TRUE(facts.ops_finished) << name;
  ASSERT_EQ(facts.ops.size(), 1u) << name;
  EXPECT_EQ(facts.ops[0].spec, "relu") << name;
  ASSERT_EQ(facts.ops[0].checks.size(), 6u) << name << ": 3 dtypes x small, medium";
  for (const OpCheckFact& check : facts.ops[0].checks) EXPECT_TRUE(check.passed) << name << " " << check.dtype;
}

// ... and gave no finding.
void expect_ran_cleanly(const std::string& name) {
  EXPECT_FALSE(harness_run().findings.contains(name)) << harness_run().findings.at(name).front().message;
  expect_ops_checked(name);
}

using testing_support::processes_running;

TEST_F(Harness, ForkingAtLoadNeitherHangsTheRunNorOutlivesItAndIsKD003) {
  expect_one("fork_init", "KD003", {"left 1 process running", "kcheck killed it"});
  expect_ops_checked("fork_init");
  EXPECT_EQ(processes_running("_fork_init_cpu_abc123"), std::vector<std::string>{});
}

TEST_F(Harness, AForkBombAtLoadIsKilledWholeAndIsKD003) {
  expect_one("fork_bomb_init", "KD003", {"left 31 processes running", "kcheck killed them"});
  expect_ops_checked("fork_bomb_init");
  EXPECT_EQ(processes_running("_fork_bomb_init_cpu_abc123"), std::vector<std::string>{});
}

TEST_F(Harness, ASetsidDaemonDoesNotOutliveTheRunAndIsKD003) {
  expect_one("setsid_daemon_init", "KD003", {"left 1 process running"});
  expect_ops_checked("setsid_daemon_init");
  EXPECT_EQ(processes_running("_setsid_daemon_init_cpu_abc123"), std::vector<std::string>{});
  std::this_thread::sleep_for(std::chrono::seconds(3));  // past the daemon's sleep, had it survived
  EXPECT_FALSE(fs::exists(kDaemonMarker));
}

TEST_F(Harness, FillingTheDiskStopsAtTheFileSizeLimitAndIsKD001) { expect_one("fill_disk_init", "KD001", {"SIGXFSZ"}); }

// Many files, each under the size limit: the hidden view's working directory
// is a tmpfs of twice --worker-file-size (16 MiB here); the writes past it
// fail, and the filled tmpfs is KD003.
TEST_F(Harness, FillingTheWorkingDirectoryInManyFilesStopsAtItsBoundAndIsKD003) {
  const std::optional<ContainmentInForce>& in_force = harness_run().facts("fill_scratch_init").worker.containment;
  ASSERT_TRUE(in_force);
  if (!in_force->host_hidden) GTEST_SKIP() << "no hidden view here: " << in_force->describe();
  expect_one("fill_scratch_init", "KD003", {"the worker filled its working directory"});
}

TEST_F(Harness, AWriteOutsideTheScratchDirectoryIsRefusedOrCapturedAndIsKD003) {
  const std::optional<ContainmentInForce>& in_force = harness_run().facts("write_outside_init").worker.containment;
  ASSERT_TRUE(in_force);
  if (!in_force->read_only_outside_scratch || !in_force->writes_captured)
    GTEST_SKIP() << "no mount namespace or overlay here: " << in_force->describe();
  // The build-tree write was refused (or, a build tree under /tmp, captured
  // too); the /tmp one captured, named and thrown away.
  expect_one("write_outside_init", "KD003", {"outside its scratch directory", "kcheck captured"});
  EXPECT_FALSE(fs::exists(kOutsideFile));
  EXPECT_FALSE(fs::exists(kSharedTmpFile));
}

TEST_F(Harness, EveryWorkerRanContainedAlike) {
  const std::optional<ContainmentInForce>& first = harness_run().tree.variants.front().harness->worker.containment;
  ASSERT_TRUE(first);
  for (const VariantFacts& variant : harness_run().tree.variants)
    EXPECT_EQ(variant.harness->worker.containment, first) << variant.directory_name;
}

TEST_F(Harness, ChangingTheWorkingDirectoryAtLoadChangesNothing) { expect_ran_cleanly("chdir_init"); }

TEST_F(Harness, LeakingMemoryInEveryCallStillChecksEveryCase) { expect_ran_cleanly("leak_in_op"); }

TEST_F(Harness, SeedAndChecksGoIntoTheReportsDynamicResults) {
  TreeFacts tree = harness_run().tree;
  DynamicResults dynamic = dynamic_results(tree);
  EXPECT_EQ(dynamic.seed, 4242u);
  EXPECT_TRUE(dynamic.benchmarks.empty()) << "kcheck run does not time";
  std::size_t failed = 0;
  for (const OpCheck& check : dynamic.op_checks) failed += check.passed ? 0 : 1;
  EXPECT_EQ(failed, 4u + 6u + 6u + 3u)
      << "wrong_result float32/float16 x 2 sizes, guard_overrun x 6, partial_write x 6, refuses_some_sizes x 3";
}

// Issue #27: no silent pass. Every case whose op has no reference (a smoke
// call only) has exactly one KD007 naming the op and why; ops checked
// against a reference, ops that crashed (KD003) or have no kernel (KD004),
// and variants that did not load have none.
TEST_F(Harness, EveryOpWithoutAReferenceIsKD007) {
  std::map<std::string, std::vector<std::string>> unverified;  // case -> KD007 symbols
  for (const auto& [name, findings] : harness_run().findings)
    for (const Finding& finding : findings)
      if (finding.code == "KD007") {
        unverified[name].push_back(finding.location.symbol);
        EXPECT_EQ(finding.severity, Severity::warning) << "a warning under a policy that does not require verification";
        EXPECT_NE(finding.message.find("was not verified: no reference"), std::string::npos) << finding.message;
      }
  const std::map<std::string, std::vector<std::string>> expected = {
      {"good", {"_good_cpu_abc123::identity"}},
      {"flood_init", {"_flood_init_cpu_abc123::identity"}},
      {"foreign_namespace", {"_foreign_namespace_cpu_abc123::identity", "kcheck_foreign_ns::leak"}},
      {"aten_override", {"_aten_override_cpu_abc123::identity"}},
      {"fallback", {"_fallback_cpu_abc123::identity"}},
  };
  EXPECT_EQ(unverified, expected);
}

// Issue #27 item 4: a dtype refused cleanly is a KD009 note naming it, not
// KD002; the dtype that is supported is checked, so the op is verified. The
// same whether the refusal is a c10::Error (TORCH_CHECK) or, as a stable-ABI
// kernel's STD_TORCH_CHECK, a std::runtime_error (issue #30).
TEST_F(Harness, ADtypeRefusedBeforeWritingAnythingIsKD009NotKD002) {
  for (const std::string fixture : {"float32_only", "float32_only_std"}) {
    SCOPED_TRACE(fixture);
    std::map<std::string, std::string> notes;  // dtype -> message
    for (const Finding& finding : findings_besides_kd007(fixture)) {
      ASSERT_EQ(finding.code, "KD009") << finding.message;
      EXPECT_EQ(finding.severity, Severity::note);
      for (const char* dtype : {"float16", "bfloat16", "float32"})
        if (finding.message.find(std::string("support ") + dtype + " ") != std::string::npos)
          notes[dtype] = finding.message;
    }
    ASSERT_EQ(notes.size(), 2u) << "one note per refused dtype, not per size";
    EXPECT_NE(notes.at("float16").find("relu_kernel only supports float32"), std::string::npos) << notes.at("float16");
    EXPECT_TRUE(notes.contains("bfloat16"));
    EXPECT_FALSE(harness_run().findings.contains(fixture) &&
                 std::any_of(harness_run().findings.at(fixture).begin(), harness_run().findings.at(fixture).end(),
                             [](const Finding& finding) { return finding.code == "KD007"; }));
    int checked = 0;
    for (const OpVerification& op : dynamic_results(harness_run().tree).ops)
      if (op.op == "_" + fixture + "_cpu_abc123::relu") {
        ++checked;
        EXPECT_TRUE(op.verified);
        EXPECT_EQ(op.cases_run, 2) << "float32 at small and medium";
        EXPECT_EQ(op.cases_passed, 2);
        EXPECT_EQ(op.unsupported_dtypes, (std::vector<std::string>{"bfloat16", "float16"}));
      }
    EXPECT_EQ(checked, 1);
  }
}

// A refusal of some sizes of a dtype is a failure on valid inputs (KD002),
// not an unsupported dtype: only a dtype refused in every case is KD009.
TEST_F(Harness, ARefusalOfSomeSizesOnlyIsKD002NotKD009) {
  const std::vector<Finding> findings = findings_besides_kd007("refuses_some_sizes");
  ASSERT_EQ(findings.size(), 3u) << "the medium case of each dtype";
  for (const Finding& finding : findings) {
    EXPECT_EQ(finding.code, "KD002") << finding.message;
    EXPECT_NE(finding.message.find("[256x4096]"), std::string::npos) << finding.message;
    EXPECT_NE(finding.message.find("inputs this large are not handled"), std::string::npos) << finding.message;
  }
}

TEST_F(Harness, TheReportListsEveryRegisteredOpAndHowItWasVerified) {
  const DynamicResults dynamic = dynamic_results(harness_run().tree);
  std::map<std::string, OpVerification> by_op;
  for (const OpVerification& op : dynamic.ops) by_op[op.op] = op;
  const OpVerification& smoke = by_op.at("_good_cpu_abc123::identity");
  EXPECT_EQ(smoke.how, "smoke");
  EXPECT_FALSE(smoke.verified);
  EXPECT_EQ(smoke.schema, "_good_cpu_abc123::identity(Tensor x) -> Tensor");
  EXPECT_EQ(smoke.dispatch_keys, std::vector<std::string>{"CPU"});
  const OpVerification& checked = by_op.at("_wrong_result_cpu_abc123::silu");
  EXPECT_EQ(checked.how, "reference");
  EXPECT_TRUE(checked.verified) << "checked, and found wrong (KD002): verification happened";
  EXPECT_EQ(checked.reference, "silu");
  EXPECT_EQ(checked.cases_run, 6);
  EXPECT_EQ(checked.cases_passed, 2);
  EXPECT_EQ(by_op.at("_cuda_only_op_cpu_abc123::gelu").reported_as, "KD004");
  EXPECT_EQ(by_op.at("_abort_in_op_cpu_abc123::relu").reported_as, "KD003");
  std::map<std::string, VariantRun> runs;
  for (const VariantRun& run : dynamic.runs) runs[run.variant] = run;
  EXPECT_EQ(runs.size(), kCases.size());
  EXPECT_TRUE(runs.at("good").ran);
  EXPECT_EQ(runs.at("good").ops_registered, 1);
  EXPECT_EQ(runs.at("good").ops_verified, 0);
  EXPECT_FALSE(runs.at("segv_init").ran);
  EXPECT_EQ(runs.at("segv_init").ops_registered, 0);
  EXPECT_FALSE(runs.at("abort_in_op").ran);
  EXPECT_NE(runs.at("abort_in_op").reason.find("ended before its ops were all run"), std::string::npos);
}

TEST(HarnessRules, SilentWithoutDynamicFacts) {
  AuditOptions options;
  options.selection.select = {"KD", "KO006"};
  Report report =
      run_audit(fs::path(KCHECK_HARNESS_FIXTURES_DIR) / "segv_init", load_policy("hub"), options, make_rule_registry());
  EXPECT_TRUE(report.findings.empty());
}

// Every baseline an op spec may name (baseline_forms.cpp) has the libtorch
// function that kcheck_worker times it with (reference_ops.cpp): --info
// refuses to describe a worker that lacks one.
TEST(HarnessWorker, TimesEveryBaselineKcheckKnows) {
  ProcessEnd end = run_bounded({std::string(KCHECK_TEST_WORKER_PATH), "--info"},
                               ProcessLimits{std::chrono::milliseconds(60000), 64 * 1024});
  ASSERT_EQ(end.exit_code, 0) << end.output;
  EXPECT_TRUE(nlohmann::json::parse(end.output).contains("torch_version")) << end.output;
}

}  // namespace
}  // namespace kcheck

// The exit status CTest reads as "Skipped" for this suite (tests/CMakeLists.txt).
constexpr int kSuiteSkipped = 77;

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (std::string(KCHECK_HARNESS_FIXTURES_DIR).empty()) {
    std::printf(
        "the dynamic harness suite cannot run: kcheck_worker was not built (no Torch in .venv, "
        "or a sanitizer build); scripts/setup.sh installs Torch\n");
    return kSuiteSkipped;
  }
  const int status = RUN_ALL_TESTS();
  if (status != 0) return status;
  const ::testing::UnitTest& suite = *::testing::UnitTest::GetInstance();
  if (suite.skipped_test_count() > 0) {
    std::printf("%d of %d tests skipped (each says why above): the suite did not fully run\n",
                suite.skipped_test_count(), suite.total_test_count());
    return kSuiteSkipped;
  }
  return 0;
}
