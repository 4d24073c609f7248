// The containment of processes that run untrusted code (core/process_containment.h),
// with shell commands standing in for a kernel: what it starts does not outlive
// it, with namespaces and with the subreaper fallback alike.
#include <gtest/gtest.h>

#include "tests/support/live_processes.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
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

// Issue #28 item 2: a kernel read HF_TOKEN from the worker's environment.
TEST_P(ContainedRun, NoSecretOfTheUsersEnvironmentReachesIt) {
  ::setenv("HF_TOKEN", "hf_secret_token", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "aws-secret", 1);
  const fs::path scratch = scratch_dir("scratch");
  const ProcessEnd end = run_contained("env", scratch, GetParam());
  ::unsetenv("HF_TOKEN");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  EXPECT_EQ(end.exit_code, 0) << end.output;
  EXPECT_EQ(end.output.find("secret"), std::string::npos) << end.output;
  EXPECT_NE(end.output.find("\nPATH=/"), std::string::npos) << end.output;
  EXPECT_NE(end.output.find("XDG_CACHE_HOME=" + scratch.string() + "\n"), std::string::npos) << end.output;
}

// Issue #28 item 2: a kernel sent what it read to a TCP listener on
// 127.0.0.1. In a network namespace of its own there is no route to it.
TEST_P(ContainedRun, WithNamespacesItHasNoNetworkNotEvenTheMachinesLoopback) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), length), 0);
  ASSERT_EQ(::listen(listener, 4), 0);
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string port = std::to_string(ntohs(address.sin_port));
  const std::string connect =
      "bash -c 'exec 3<>/dev/tcp/127.0.0.1/" + port + "' 2>/dev/null && echo connected || echo no-connection";
  const ProcessEnd end = run_contained(connect, scratch_dir("scratch"), GetParam());
  // --allow-network: the same, in the machine's network.
  Containment with_network;
  with_network.scratch = scratch_dir("allowed");
  with_network.namespaces = GetParam();
  with_network.network_namespace = false;
  const ProcessEnd allowed = run_bounded({"sh", "-c", connect}, {std::chrono::seconds(20), 64 * 1024, with_network});
  ::close(listener);
  EXPECT_EQ(allowed.output, "connected\n");
  ASSERT_TRUE(allowed.containment);
  EXPECT_FALSE(allowed.containment->network_namespace);
  ASSERT_TRUE(end.containment);
  if (!end.containment->pid_namespace) {
    EXPECT_EQ(end.output, "connected\n") << "the fallback keeps the machine's network, and says so";
    EXPECT_FALSE(end.containment->network_namespace);
    return;
  }
  EXPECT_TRUE(end.containment->network_namespace);
  EXPECT_EQ(end.output, "no-connection\n");
  // Its own loopback is up: code that talks to itself over 127.0.0.1 works.
  const ProcessEnd own = run_contained(
      "python3 -c \"import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); "
      "socket.create_connection(s.getsockname()); print('own loopback')\"",
      scratch_dir("own"), GetParam());
  EXPECT_EQ(own.output, "own loopback\n");
}

INSTANTIATE_TEST_SUITE_P(ProcessContainment, ContainedRun, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "Namespaces" : "SubreaperFallback");
                         });

TEST(ProcessContainment, OnlyDeviceThreadLocaleAndLibraryVariablesArePassedOn) {
  std::vector<std::string> parent = {"HF_TOKEN=hf_x",           "PATH=/usr/bin",   "LC_ALL=C.UTF-8",
                                     "AWS_SECRET_ACCESS_KEY=y", "HOME=/root",      "CUDA_VISIBLE_DEVICES=0",
                                     "GITHUB_TOKEN=z",          "LD_PRELOAD=/x.so"};
  std::vector<char*> pointers;
  pointers.reserve(parent.size() + 1);
  for (std::string& variable : parent) pointers.push_back(variable.data());
  pointers.push_back(nullptr);
  EXPECT_EQ(contained_environment(pointers.data(), "/s"),
            (std::vector<std::string>{"PATH=/usr/bin", "LC_ALL=C.UTF-8", "CUDA_VISIBLE_DEVICES=0", "HOME=/s",
                                      "TMPDIR=/s", "TMP=/s", "TEMP=/s", "XDG_CACHE_HOME=/s"}));
  // --pass-env adds a variable, but never a second HOME (or TMPDIR...): those are the scratch.
  EXPECT_EQ(contained_environment(pointers.data(), "/s", {"GITHUB_TOKEN", "HOME"}),
            (std::vector<std::string>{"PATH=/usr/bin", "LC_ALL=C.UTF-8", "CUDA_VISIBLE_DEVICES=0", "GITHUB_TOKEN=z",
                                      "HOME=/s", "TMPDIR=/s", "TMP=/s", "TEMP=/s", "XDG_CACHE_HOME=/s"}));
}

TEST(ProcessContainment, InForceIsDescribedForTheReport) {
  ContainmentInForce in_force;
  in_force.pid_namespace = true;
  in_force.read_only_outside_scratch = true;
  EXPECT_EQ(in_force.describe(),
            "PID namespace (nothing the worker starts outlives it); read-only outside its scratch directory; "
            "the machine's network; no process limit (no cgroup of its own, and root or no user namespace)");
  in_force.writes_captured = true;
  in_force.process_limit = true;
  in_force.network_namespace = true;
  EXPECT_EQ(in_force.describe(),
            "PID namespace (nothing the worker starts outlives it); read-only outside its scratch directory; "
            "writes to the shared temporary directories captured and reported; no network (a network namespace of "
            "its own); process limit");
}

}  // namespace
}  // namespace kcheck
