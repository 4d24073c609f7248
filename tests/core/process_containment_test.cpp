// The containment of processes that run untrusted code (process/process_containment.h),
// with shell commands standing in for a kernel: what it starts does not outlive
// it, with namespaces and with the subreaper fallback alike.
#include <gtest/gtest.h>

#include "tests/support/live_processes.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "checker/process/bounded_process.h"
#include "checker/process/sandbox_view.h"
#include "checker/process/scratch_usage.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

// Under the build tree, or $KCHECK_TEST_SCRATCH_BASE: CTest runs these tests
// once more from a directory under /tmp whose name has a space, unprivileged
// (tests/CMakeLists.txt, issue #28 item 13): they hold wherever the checkout is.
fs::path scratch_dir(const std::string& name) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const char* base = std::getenv("KCHECK_TEST_SCRATCH_BASE");
  fs::path dir =
      (base && *base ? fs::path(base) : fs::path(KCHECK_BINARY_DIR) / "containment-test-scratch") / test->name() / name;
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

// Refused (read-only), or captured where the checkout is under a shared
// directory (/tmp): either way the write never reaches the machine.
TEST_P(ContainedRun, WritesOutsideTheScratchAreRefusedWhereAMountNamespaceIsInForce) {
  const fs::path outside = scratch_dir("outside") / "written";
  const ProcessEnd end = run_contained("echo x > '" + outside.string() + "'", scratch_dir("scratch"), GetParam());
  ASSERT_TRUE(end.containment);
  if (!end.containment->read_only_outside_scratch) GTEST_SKIP() << end.containment->describe();
  const std::string path = outside.string();
  const bool in_shared = path.starts_with("/tmp/") || path.starts_with("/var/tmp/") || path.starts_with("/dev/shm/");
  if (in_shared && end.captured_writes > 0) {
    EXPECT_EQ(end.captured_writes, 1) << end.output;
    EXPECT_EQ(end.first_captured_write, path);
  } else if (in_shared) {
    // Inside a user namespace overlayfs refuses to copy up a directory whose
    // owner is not mapped there (EOVERFLOW): refused, not captured.
    EXPECT_NE(end.exit_code, 0) << end.output;
  } else {
    EXPECT_NE(end.exit_code, 0);
    EXPECT_NE(end.output.find("Read-only file system"), std::string::npos) << end.output;
  }
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

// Issue #28: where no tmpfs bounds the scratch (no hidden view: here the
// whole host read-only with a writable scratch, or the fallback without
// namespaces), kcheck measures it and stops a process that writes past the
// bound in files each under the size limit.
TEST_P(ContainedRun, WritingPastTheScratchBoundInManyFilesStopsTheProcess) {
  Containment containment;
  containment.scratch = scratch_dir("bounded-scratch");
  containment.file_size = 1u << 20;
  containment.work_bytes = 2u << 20;
  containment.namespaces = GetParam();
  const ProcessEnd end = run_bounded(
      {"sh", "-c", "for i in $(seq 1 64); do head -c 524288 /dev/zero > f$i; sleep 0.02; done; echo finished"},
      {std::chrono::seconds(20), 64 * 1024, containment});
  EXPECT_EQ(end.output.find("finished"), std::string::npos) << end.output;
  EXPECT_TRUE(end.scratch_overflow.ends_with(
      " entries to its scratch directory, past kcheck's bound of 2 MiB and 16384 entries"))
      << end.scratch_overflow;
  EXPECT_FALSE(end.timed_out);
  EXPECT_LT(measure_scratch(containment.scratch, 1000).entries, 64u);
  const ProcessEnd within = run_bounded(
      {"sh", "-c",
       "head -c 524288 /dev/zero > f; for i in $(seq 1 20); do mkdir -p t/$i && rm -r t/$i; done; sleep 0.5; "
       "echo finished"},
      {std::chrono::seconds(20), 64 * 1024, containment});
  EXPECT_EQ(within.output, "finished\n") << "directories made and removed while measured are no overflow";
  EXPECT_EQ(within.scratch_overflow, "");
  // A directory it makes unreadable hides what it holds: stopped all the same.
  const ProcessEnd hidden =
      run_bounded({"sh", "-c", "mkdir d; head -c 65536 /dev/zero > d/f; chmod 0 d; sleep 2; echo finished"},
                  {std::chrono::seconds(20), 64 * 1024, containment});
  ::chmod((containment.scratch / "d").c_str(), 0755);
  if (::geteuid() != 0) {  // root reads it anyway
    EXPECT_EQ(hidden.output.find("finished"), std::string::npos) << hidden.output;
    EXPECT_TRUE(hidden.scratch_overflow.starts_with("a part of its scratch directory kcheck cannot measure"))
        << hidden.scratch_overflow;
  }
}

TEST(ScratchUsage, CountsAllocatedBlocksNotLengthsAndStopsCountingPastTheBound) {
  const fs::path scratch = scratch_dir("usage");
  std::ofstream(scratch / "data", std::ios::binary) << std::string(1u << 20, 'x');
  {
    std::ofstream sparse(scratch / "sparse", std::ios::binary);
    sparse.seekp((1u << 30) - 1);
    sparse.put('x');
  }
  fs::create_directories(scratch / "sub");
  std::ofstream(scratch / "sub" / "small") << "x";
  fs::create_symlink("/usr", scratch / "link");  // not followed
  const ScratchUsage usage = measure_scratch(scratch, 100);
  EXPECT_TRUE(usage.complete);
  EXPECT_EQ(usage.entries, 5u);
  EXPECT_GE(usage.bytes, 1u << 20);
  EXPECT_LT(usage.bytes, 2u << 20) << "the sparse gigabyte allocates one block";
  const ScratchUsage cut = measure_scratch(scratch, 3);
  EXPECT_FALSE(cut.complete);
  EXPECT_EQ(cut.entries, 4u);
  fs::path deep = scratch / "deep";
  for (int level = 0; level < 66; ++level) deep /= "d";
  fs::create_directories(deep);
  EXPECT_FALSE(measure_scratch(scratch, 1000).complete) << "more than 64 levels down is not measured";
  EXPECT_FALSE(measure_scratch(scratch / "missing", 1000).complete);
}

INSTANTIATE_TEST_SUITE_P(ProcessContainment, ContainedRun, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "Namespaces" : "SubreaperFallback");
                         });

// Issue #28: under a hidden view only what kcheck names is there. Run with
// namespaces (the view needs them); where they are refused the run fails
// instead (start_contained never falls back to a weaker view).
ProcessEnd run_in_view(const std::string& script, const fs::path& scratch, std::vector<fs::path> visible,
                       std::uint64_t work_bytes = 1u << 20) {
  Containment containment;
  containment.scratch = scratch;
  containment.file_size = 1u << 20;
  containment.visible = std::move(visible);
  containment.work_bytes = work_bytes;
  containment.require_namespaces = true;
  ProcessLimits limits{std::chrono::seconds(20), 64 * 1024, containment};
  limits.result_channel = true;
  return run_bounded({"sh", "-c", script}, limits);
}

TEST(HiddenView, OnlyTheSystemTheNamedPathsAndTheScratchAreThereTheRestOfTheHostIsAbsent) {
  if (const std::string why = sandbox_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const fs::path shown = scratch_dir("shown");
  const fs::path hidden = scratch_dir("hidden");
  std::ofstream(shown / "visible.txt") << "shown\n";
  std::ofstream(hidden / "secret.txt") << "secret\n";
  const fs::path scratch = scratch_dir("scratch");
  std::ofstream(scratch / "input.txt") << "input\n";
  const fs::path host_tmp = fs::path("/tmp") / ("kcheck-view-test-" + std::to_string(::getpid()));
  std::ofstream(host_tmp) << "secret\n";
  // A descriptor kcheck holds without close-on-exec (as a CI runner may hand it one).
  const int opened = ::open(hidden.c_str(), O_RDONLY | O_DIRECTORY);
  const int inherited = ::fcntl(opened, F_DUPFD, 10);  // above the result descriptor (3)
  ::close(opened);
  ASSERT_GE(inherited, 0);
  const ProcessEnd end =
      run_in_view("cat '" + (shown / "visible.txt").string() +
                      "'; cat ../input.txt; "
                      "test -e '" +
                      (hidden / "secret.txt").string() +
                      "' || echo secret-absent; "
                      "test -e '" +
                      host_tmp.string() +
                      "' || echo host-tmp-absent; "
                      "test -e /run || echo run-absent; test -e /root || echo root-absent; "
                      "test -e /etc/shadow || echo shadow-absent; test -c /dev/null && echo dev-null; "
                      "test -e /dev/tty || echo no-tty; test -e /proc/self/fd/" +
                      std::to_string(inherited) +
                      " || echo fd-closed; "
                      "{ echo x > '" +
                      (shown / "written").string() +
                      "'; } 2>/dev/null || echo named-read-only; "
                      "{ echo x > ../in-scratch; } 2>/dev/null || echo scratch-read-only; "
                      "echo x > here && echo x > /tmp/t && pwd",
                  scratch, {shown});
  fs::remove(host_tmp);
  ::close(inherited);
  ASSERT_TRUE(end.containment) << end.output;
  EXPECT_TRUE(end.containment->host_hidden) << end.containment->describe();
  EXPECT_EQ(end.exit_code, 0) << end.output;
  EXPECT_EQ(end.output,
            "shown\ninput\nsecret-absent\nhost-tmp-absent\nrun-absent\nroot-absent\nshadow-absent\ndev-null\n"
            "no-tty\nfd-closed\n"
            "named-read-only\nscratch-read-only\n" +
                (scratch / "work").string() + "\n");
  EXPECT_FALSE(fs::exists(shown / "written"));
  EXPECT_FALSE(fs::exists(scratch / "in-scratch"));
  EXPECT_FALSE(fs::exists(scratch / "work" / "here")) << "the work directory is a tmpfs of the run's own";
  EXPECT_EQ(end.captured_writes, 1);
  EXPECT_EQ(end.first_captured_write, "/tmp/t");
}

// Issue #28 item 7: the scratch's total size is bounded, and a full one is reported.
TEST(HiddenView, TheWorkDirectoryIsBoundedInSizeAndAFullOneIsReported) {
  if (const std::string why = sandbox_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const ProcessEnd end =
      run_in_view("for i in 1 2 3 4 5 6 7 8; do head -c 524288 /dev/zero > f$i || { echo stopped at $i; break; }; done",
                  scratch_dir("scratch"), {}, 2u << 20);
  EXPECT_NE(end.output.find("stopped at 5"), std::string::npos) << end.output;
  EXPECT_EQ(end.full, "its working directory");
  const ProcessEnd room = run_in_view("head -c 1024 /dev/zero > f", scratch_dir("room"), {}, 2u << 20);
  EXPECT_EQ(room.exit_code, 0) << room.output;
  EXPECT_EQ(room.full, "");
}

// Issue #28 item 4: results come back on descriptor 3, a pipe; the last
// complete record counts, and no file the process writes stands in for it.
TEST(HiddenView, ResultsComeBackOnAPipeAndTheLastCompleteRecordCounts) {
  if (const std::string why = sandbox_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const fs::path scratch = scratch_dir("scratch");
  const ProcessEnd end = run_in_view(
      "printf 'stray' >&3; printf '\\0first\\0' >&3; printf 'second\\0' >&3; printf 'cut-' >&3; "
      "echo forged > result.json",
      scratch, {});
  EXPECT_EQ(end.exit_code, 0) << end.output;
  ASSERT_TRUE(end.result) << end.output;
  EXPECT_EQ(*end.result, "second");
  const ProcessEnd none = run_in_view("true", scratch_dir("none"), {});
  EXPECT_FALSE(none.result);
  // A record past the bound is thrown away and said so.
  Containment containment;
  containment.scratch = scratch_dir("large");
  containment.visible = std::vector<fs::path>{};
  ProcessLimits limits{std::chrono::seconds(20), 64 * 1024, containment};
  limits.result_channel = true;
  limits.max_result = 1000;
  const ProcessEnd large = run_bounded(
      {"sh", "-c", "printf 'small\\0' >&3; head -c 5000 /dev/zero | tr '\\0' x >&3; printf '\\0' >&3"}, limits);
  EXPECT_TRUE(large.result_too_large);
  ASSERT_TRUE(large.result);
  EXPECT_EQ(*large.result, "small");
  // A complete record after the oversized bytes stands.
  const ProcessEnd after =
      run_bounded({"sh", "-c", "head -c 5000 /dev/zero | tr '\\0' x >&3; printf '\\0after\\0' >&3"}, limits);
  EXPECT_FALSE(after.result_too_large);
  ASSERT_TRUE(after.result);
  EXPECT_EQ(*after.result, "after");
  // Past the timeout the last record still comes back: it says where the process was.
  limits.timeout = std::chrono::milliseconds(1500);
  const ProcessEnd hung = run_bounded({"sh", "-c", "printf '\\0running op\\0' >&3; sleep 60"}, limits);
  EXPECT_TRUE(hung.timed_out);
  ASSERT_TRUE(hung.result);
  EXPECT_EQ(*hung.result, "running op");
}

TEST(HiddenView, VisibleRootsDropWhatTheSystemShowsAndWhatAnotherRootHolds) {
  EXPECT_EQ(visible_roots({"/usr/lib/x", "/", "relative", "/proc/1", "/opt/a/b", "/opt/a", "/opt/a/", "/srv/x/../y",
                           "/tmp", "/tmp/k", "/var/tmp/"}),
            (std::vector<std::string>{"/opt/a", "/srv/y", "/tmp/k"}));
}

// Each path of the view is placed one directory at a time, so a visible
// directory whose path fits the machine's limit but not once it is put under
// the staging root is still shown (it used to fail with ENAMETOOLONG).
TEST(HiddenView, APathAsLongAsTheMachineAllowsIsShown) {
  if (const std::string why = sandbox_unavailable(); !why.empty()) GTEST_SKIP() << why;
  fs::path deep = scratch_dir("deep");
  while (deep.string().size() < 4093) {
    const std::size_t room = 4093 - deep.string().size() - 1;
    deep /= std::string(std::min<std::size_t>(room, 200), 'd');
  }
  ASSERT_EQ(deep.string().size(), 4093u);
  fs::create_directories(deep);
  std::ofstream(deep / "x") << "deep\n";
  const ProcessEnd end = run_in_view("cd '" + deep.string() + "' && cat x", scratch_dir("scratch"), {deep});
  EXPECT_TRUE(end.started);
  EXPECT_EQ(end.output, "deep\n");
}

// Issue #28: a view path nested in a bind of a host directory is placed
// without following links. Here the scratch directory is named through a link
// inside a visible directory (as a repository could hold one); the old code
// followed it and mounted the scratch at the link's target (in the keeper's
// mount namespace), and the worker failed later, for another reason.
// Now the view cannot be built, so nothing runs (fail closed), and the refusal
// names the path and why.
TEST(HiddenView, ALinkInsideAShownDirectoryIsNeverFollowedToPlaceAMount) {
  if (const std::string why = sandbox_unavailable(); !why.empty()) GTEST_SKIP() << why;
  const fs::path shown = scratch_dir("shown-with-link");
  const fs::path elsewhere = scratch_dir("link-target");
  fs::create_directories(elsewhere / "scratch" / "work");
  fs::create_symlink(elsewhere, shown / "link");
  const ProcessEnd end = run_in_view("echo ran", shown / "link" / "scratch", {shown});
  EXPECT_FALSE(end.started);
  EXPECT_EQ(end.output.find("ran"), std::string::npos) << end.output;
  EXPECT_NE(end.output.find((shown / "link" / "scratch").string() + " in the sandbox: Not a directory"),
            std::string::npos)
      << end.output;
}

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
  in_force.host_hidden = true;
  EXPECT_EQ(in_force.describe(),
            "PID namespace (nothing the worker starts outlives it); the rest of the machine hidden (only the system's "
            "directories, the variant, Torch and Python, read-only; writes go to size-bounded temporary directories); "
            "writes to the shared temporary directories captured and reported; no network (a network namespace of "
            "its own); process limit");
}

}  // namespace
}  // namespace kcheck
