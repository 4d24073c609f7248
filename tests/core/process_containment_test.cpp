// The containment of processes that run untrusted code (core/process_containment.h),
// with shell commands standing in for a kernel: what it starts does not outlive
// it, with namespaces and with the subreaper fallback alike.
#include <gtest/gtest.h>

#include "tests/support/live_processes.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "checker/core/bounded_process.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

fs::path scratch_dir(const std::string& name) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = fs::path(KCHECK_BINARY_DIR) / "containment-test-scratch" / test->name() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

ProcessEnd run_contained(const std::string& script, const fs::path& scratch, bool namespaces,
                         std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  Containment containment;
  containment.scratch = scratch;
  containment.file_size = 1u << 20;
  containment.namespaces = namespaces;
  return run_bounded({"sh", "-c", script}, {timeout, 64 * 1024, containment});
}

// With namespaces, or the fallback. CTest runs the two at once: each uses its
// own sleep durations as markers, so one never counts the other's processes.
class ContainedRun : public ::testing::TestWithParam<bool> {
 protected:
  static std::string marker(const std::string& seconds) { return seconds + (GetParam() ? "1" : "2"); }
};

TEST_P(ContainedRun, TheScratchIsTheWorkingDirectoryHomeAndTmpdir) {
  const fs::path scratch = scratch_dir("scratch");
  const ProcessEnd end = run_contained("pwd; echo \"$HOME\"; echo \"$TMPDIR\"; echo x > here", scratch, GetParam());
  EXPECT_EQ(end.exit_code, 0) << end.output;
  EXPECT_EQ(end.output, scratch.string() + "\n" + scratch.string() + "\n" + scratch.string() + "\n");
  EXPECT_TRUE(fs::exists(scratch / "here"));
  ASSERT_TRUE(end.containment);
  EXPECT_EQ(end.leftover_processes, 0);
}

TEST_P(ContainedRun, ASetsidDaemonAndABackgroundChildAreKilledAndCounted) {
  const ProcessEnd end = run_contained("setsid sh -c 'sleep " + marker("97.5") + "; sleep " + marker("97.5") +
                                           "' & sleep " + marker("97.25") + " & echo started",
                                       scratch_dir("scratch"), GetParam());
  EXPECT_EQ(end.exit_code, 0) << end.output;
  EXPECT_GE(end.leftover_processes, 2);
  EXPECT_EQ(testing_support::processes_running(marker("97.5")).size(), 0u);
  EXPECT_EQ(testing_support::processes_running(marker("97.25")).size(), 0u);
}

TEST_P(ContainedRun, AtTheTimeoutEverythingItStartedIsKilled) {
  const ProcessEnd end = run_contained(
      "setsid sh -c 'sleep " + marker("96.5") + "; sleep " + marker("96.5") + "' & sleep " + marker("96.25"),
      scratch_dir("scratch"), GetParam(), std::chrono::milliseconds(1000));
  EXPECT_TRUE(end.timed_out);
  EXPECT_EQ(testing_support::processes_running(marker("96.5")).size(), 0u);
  EXPECT_EQ(testing_support::processes_running(marker("96.25")).size(), 0u);
}

TEST_P(ContainedRun, AFileBeyondTheSizeLimitEndsItsWriterWithSigxfsz) {
  const fs::path scratch = scratch_dir("scratch");
  const ProcessEnd end = run_contained("exec head -c 2000000 /dev/zero > big", scratch, GetParam());
  EXPECT_EQ(end.signal, SIGXFSZ) << end.output;
  EXPECT_EQ(fs::file_size(scratch / "big"), 1u << 20);
}

TEST_P(ContainedRun, AProgramThatCannotStartIsSaidSo) {
  Containment containment;
  containment.scratch = scratch_dir("scratch");
  containment.namespaces = GetParam();
  const ProcessEnd end = run_bounded({"/nonexistent/program"}, {std::chrono::seconds(5), 1024, containment});
  EXPECT_FALSE(end.started);
  EXPECT_NE(end.output.find("cannot start /nonexistent/program"), std::string::npos) << end.output;
}

TEST_P(ContainedRun, WritesOutsideTheScratchAreRefusedWhereAMountNamespaceIsInForce) {
  const fs::path outside = scratch_dir("outside") / "written";
  const ProcessEnd end = run_contained("echo x > '" + outside.string() + "'", scratch_dir("scratch"), GetParam());
  ASSERT_TRUE(end.containment);
  if (!end.containment->read_only_outside_scratch) GTEST_SKIP() << end.containment->describe();
  EXPECT_NE(end.exit_code, 0);
  EXPECT_NE(end.output.find("Read-only file system"), std::string::npos) << end.output;
  EXPECT_FALSE(fs::exists(outside));
}

// The shared temporary directories are overlays in the namespace: the worker
// reads what the machine has there and writes (and removes) as it likes, but
// all of it lands in a layer kcheck counts and throws away. A scratch under
// /tmp stays the real directory.
TEST_P(ContainedRun, WritesToTheSharedTemporaryDirectoriesAreCapturedCountedAndNeverReachTheMachine) {
  const fs::path base = fs::path("/tmp") / ("kcheck-containment-test-" + std::to_string(::getpid()) + marker(""));
  fs::remove_all(base);
  fs::create_directories(base / "scratch");
  std::ofstream(base / "existing") << "kept\n";
  const fs::path created = base.string() + "-created";
  const fs::path shared_memory = fs::path("/dev/shm") / base.filename();
  const ProcessEnd end = run_contained(
      "cat '" + (base / "existing").string() + "' && echo x > in-scratch && echo y > '" + created.string() +
          "' && echo z > '" + shared_memory.string() + "' && rm '" + (base / "existing").string() + "' && echo done",
      base / "scratch", GetParam());
  ASSERT_TRUE(end.containment);
  const bool captured = end.containment->writes_captured;
  const bool existing_kept = fs::exists(base / "existing");
  const bool in_scratch = fs::exists(base / "scratch" / "in-scratch");
  fs::remove_all(base);
  fs::remove(created);
  fs::remove(shared_memory);
  if (!captured) GTEST_SKIP() << end.containment->describe();
  EXPECT_EQ(end.exit_code, 0) << end.output;
  EXPECT_EQ(end.output, "kept\ndone\n");
  EXPECT_TRUE(in_scratch);
  EXPECT_TRUE(existing_kept);
  EXPECT_EQ(end.captured_writes, 3) << "the file created in /tmp, the one in /dev/shm, the one removed";
  const std::vector<std::string> written = {created.string(), shared_memory.string(), (base / "existing").string()};
  EXPECT_NE(std::find(written.begin(), written.end(), end.first_captured_write), written.end())
      << end.first_captured_write;
}

// CUDA's driver does not initialise on a read-only /proc (error 304, seen on
// an H100): the namespace's own /proc stays writable, the kernel's settings
// under it do not.
TEST_P(ContainedRun, TheNamespacesOwnProcIsWritableButNotTheKernelsSettings) {
  const ProcessEnd end = run_contained(
      "echo contained > /proc/self/comm && echo comm-written; "
      "echo 50 > /proc/sys/vm/overcommit_ratio",
      scratch_dir("scratch"), GetParam());
  ASSERT_TRUE(end.containment);
  if (!end.containment->read_only_outside_scratch || !end.containment->pid_namespace)
    GTEST_SKIP() << end.containment->describe();
  EXPECT_NE(end.output.find("comm-written"), std::string::npos) << end.output;
  EXPECT_NE(end.output.find("Read-only file system"), std::string::npos) << end.output;
}

TEST_P(ContainedRun, AForkBombDoesNotOutliveItAndStopsAtTheProcessLimitWhereOneIsInForce) {
  // 64 background sleeps; the limit, where it applies, is 16 processes (threads) for the tree.
  Containment containment;
  containment.scratch = scratch_dir("scratch");
  containment.processes = 16;
  containment.namespaces = GetParam();
  const ProcessEnd end = run_bounded({"sh", "-c", "for i in $(seq 64); do sleep " + marker("95.5") + " & done"},
                                     {std::chrono::seconds(20), 64 * 1024, containment});
  EXPECT_EQ(testing_support::processes_running(marker("95.5")).size(), 0u);
  ASSERT_TRUE(end.containment);
  if (!end.containment->process_limit) GTEST_SKIP() << end.containment->describe();
  EXPECT_NE(end.output.find("fork"), std::string::npos) << end.output;
  EXPECT_LT(end.leftover_processes, 16);
}

// Without a cgroup, a PID namespace of its own still bounds the count where
// the kernel gives it its own pid_max (Linux 6.14; never below 301).
TEST(ProcessContainment, ThePidNamespacesOwnPidMaxBoundsAForkBombWithoutACgroup) {
  Containment containment;
  containment.scratch = scratch_dir("scratch");
  containment.processes = 16;
  containment.count_group = false;
  const ProcessEnd end = run_bounded({"sh", "-c", "for i in $(seq 400); do sleep 94.51 & done"},
                                     {std::chrono::seconds(30), 64 * 1024, containment});
  EXPECT_EQ(testing_support::processes_running("94.51").size(), 0u);
  ASSERT_TRUE(end.containment);
  if (!end.containment->process_limit) GTEST_SKIP() << end.containment->describe();
  EXPECT_NE(end.output.find("fork"), std::string::npos) << end.output;
  EXPECT_LE(end.leftover_processes, 301);
}

INSTANTIATE_TEST_SUITE_P(ProcessContainment, ContainedRun, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "Namespaces" : "SubreaperFallback");
                         });

TEST(ProcessContainment, InForceIsDescribedForTheReport) {
  ContainmentInForce in_force;
  in_force.pid_namespace = true;
  in_force.read_only_outside_scratch = true;
  EXPECT_EQ(in_force.describe(),
            "PID namespace (nothing the worker starts outlives it); read-only outside its scratch directory; "
            "no process limit (no cgroup of its own, and root or no user namespace)");
  in_force.writes_captured = true;
  in_force.process_limit = true;
  EXPECT_EQ(in_force.describe(),
            "PID namespace (nothing the worker starts outlives it); read-only outside its scratch directory; "
            "writes to the shared temporary directories captured and reported; process limit");
}

}  // namespace
}  // namespace kcheck
