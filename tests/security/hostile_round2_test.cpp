// Issue #14, "hostile input, round 2": each class an attacker's round found,
// driven through the kcheck command as the Hub runs it, asserting a finding
// or a bounded clean exit, output that is valid in its format, and nothing
// left running. The reproducers are generated, never committed as megabytes;
// unit tests and fuzz regressions cover each mechanism too. Every class is
// driven through the command line in tests/security/:
//   here: 1 options before a subcommand, 2 the upload's own config,
//     7 `kcheck run` containment (fork bomb, setsid daemon, disk fill, a write
//     outside the scratch), 8 scan report names, 9 JUnit encoding,
//     10 stricter than the loader and CPython, 11 cache trust,
//     12 terminal injection and chmod 000;
//   hostile_text_test.cpp: 3 deep nesting and long strings, 6 a number that
//     does not parse;
//   scale_bounds_test.cpp: 4 and 5 huge collections.
// The mechanisms also have unit tests: tests/core/process_containment_test.cpp
// and tests/harness (7), tests/scan (8), tests/metadata, tests/python and the
// loader_differential test over the fuzz corpora (10).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "checker/core/rule.h"
#include "tests/security/security_test_support.h"
#include "tests/support/kcheck_command.h"
#include "tests/support/live_processes.h"

namespace kcheck::security_test {
namespace {

const std::string kVariant = "torch213-cxx11-cpu-x86_64-linux";
const std::string kVariantPath = "build/" + kVariant;
constexpr long kMaxRssKb = (kAddressSanitizer ? 2 : 1) * 1024 * 1024;

fs::path fixture(const std::string& name) { return fs::path(KCHECK_TREE_FIXTURES_DIR) / name; }

class HostileRound2 : public ::testing::Test {
 public:  // the helpers below serve free functions of this file too
  fs::path copy_fixture(const std::string& name) { return copy_tree_fixture(name, scratch_.path() / name); }

  Outcome kcheck(const std::vector<std::string>& arguments, const Bounds& bounds = {}) {
    return run_kcheck(arguments, bounds, scratch_.path());
  }

  static void expect_bounded(const Outcome& outcome, int exit_code) {
    EXPECT_FALSE(outcome.killed_at_wall_limit);
    EXPECT_EQ(outcome.signal, 0) << outcome.err;
    EXPECT_EQ(outcome.exit_code, exit_code) << outcome.err << outcome.out.substr(0, 2000);
    EXPECT_LT(outcome.max_rss_kb, kMaxRssKb);
  }

  static std::multiset<std::string> codes(const nlohmann::json& report) {
    std::multiset<std::string> found;
    for (const std::string& key : finding_keys(report)) found.insert(key.substr(0, key.find('@')));
    return found;
  }

  ScratchDir scratch_;
};

// Class 1: options before the subcommand are the same options as after it.
TEST_F(HostileRound2, OptionsMeanTheSameBeforeAndAfterTheSubcommand) {
  const std::string clean = fixture("clean_cpu_variants_from_template").string();
  for (const std::vector<std::string>& arguments :
       {std::vector<std::string>{"--security", "--format", "json", "run", clean},
        {"--security", "bench", clean},
        {"run", clean, "--security"},
        {"--format", "json", "--security", "build", (fs::path(KCHECK_SOURCE_DIR) / "reference/kernels/relu").string(),
         "--scratch-dir", (scratch_.path() / "scratch").string()}}) {
    const Outcome outcome = kcheck(arguments);
    expect_bounded(outcome, 2);
    EXPECT_NE(outcome.err.find("executes kernel code; --security forbids it"), std::string::npos) << outcome.err;
    EXPECT_TRUE(outcome.out.empty()) << outcome.out;
  }
  EXPECT_FALSE(fs::exists(scratch_.path() / "scratch")) << "the toolchain ran";

  // A warning only (KC006: a suppression without a reason): --strict fails
  // the scan's gate wherever it stands.
  const fs::path warned = copy_fixture("clean_cpu_variants_from_template");
  std::ofstream(warned / "kcheck.toml") << "ignore = [{code = \"KL005\", path = \"nothing\"}]\n";
  const std::string warning_only = warned.string();
  expect_bounded(kcheck({"scan", "--no-cache", warning_only}), 0);
  expect_bounded(kcheck({"--strict", "scan", "--no-cache", warning_only}), 1);
  expect_bounded(kcheck({"scan", "--no-cache", warning_only, "--strict"}), 1);
  const Outcome json = kcheck({"--format", "json", "scan", "--no-cache", warning_only});
  expect_bounded(json, 0);
  EXPECT_TRUE(json.report.is_object()) << json.out.substr(0, 500);

  // An argument no command takes is an error, never dropped.
  const Outcome stray = kcheck({"config", clean, "extra"});
  expect_bounded(stray, 2);
  EXPECT_NE(stray.err.find("not expected: extra"), std::string::npos) << stray.err;
}

// Class 2: the upload does not decide its own verdict.
TEST_F(HostileRound2, TheUploadsOwnConfigCannotSilenceItsAudit) {
  const fs::path repository = copy_fixture("kl005_files_that_must_not_ship");
  std::ofstream(repository / "kcheck.toml") << "ignore = [{code = \"K\", reason = \"trust me\"}]\n";
  // The fixture's findings are KL005 warnings: --strict makes them fail the gate.
  const Outcome wide = kcheck({"--strict", "--format", "json", repository.string()});
  expect_bounded(wide, 1);
  EXPECT_EQ(codes(wide.report).count("KC007"), 1u) << wide.out.substr(0, 2000);

  std::ofstream(repository / "kcheck.toml") << "ignore = [{code = \"KL005\", reason = \"trust me\"}]\n";
  expect_bounded(kcheck({"--strict", "--format", "json", repository.string()}), 0);
  const Outcome secure = kcheck({"--strict", "--security", "--format", "json", repository.string()});
  expect_bounded(secure, 1);
  EXPECT_EQ(codes(secure.report).count("KC007"), 1u);
  EXPECT_EQ(secure.report["summary"]["suppressed"], 0);

  // Read like every file of the upload: in the root, bounded.
  fs::remove(repository / "kcheck.toml");
  fs::create_symlink("/etc/passwd", repository / "kcheck.toml");
  // Not read, a finding, and the audit goes on (issue #28 item 10).
  const Outcome link = kcheck({"--format", "json", repository.string()});
  expect_bounded(link, 1);
  EXPECT_EQ(codes(link.report).count("KC007"), 1u) << link.out.substr(0, 2000);
  EXPECT_NE(link.out.find("a link that leaves the repository"), std::string::npos) << link.out.substr(0, 2000);
  fs::remove(repository / "kcheck.toml");
  {
    std::ofstream sparse(repository / "pyproject.toml", std::ios::binary);
    sparse.seekp((std::streamoff{3} << 30) - 1);
    sparse.put('\n');
  }
  const Outcome huge = kcheck({"--security", "--format", "json", repository.string()});
  expect_bounded(huge, 1);
  EXPECT_EQ(codes(huge.report).count("KC007"), 1u) << huge.out.substr(0, 2000);
  EXPECT_NE(huge.out.find("above the bound of 1048576 bytes"), std::string::npos) << huge.out.substr(0, 2000);
  fs::remove(repository / "pyproject.toml");

  // A 1 KB suppression path that a backtracking glob explores exponentially,
  // against a 200-character file name that a finding names.
  std::ofstream(repository / kVariantPath / (std::string(200, 'a') + ".o")) << "object\n";
  std::string stars;
  for (int i = 0; i < 40; ++i) stars += "*a";
  std::ofstream(repository / "kcheck.toml")
      << "ignore = [{code = \"KL005\", path = \"build/**/" << stars << "*b\", reason = \"x\"}]\n";
  Bounds quick;
  quick.wall_seconds = 60;
  const Outcome glob = kcheck({"--strict", "--format", "json", repository.string()}, quick);
  expect_bounded(glob, 1);
}

// JUnit must parse as XML (the venv's Python reads it) and be UTF-8.
void expect_valid_junit(const std::string& xml, const fs::path& scratch) {
  const fs::path file = scratch / "report.xml";
  std::ofstream(file, std::ios::binary) << xml;
  const std::string command = std::string(KCHECK_VENV_PYTHON) +
                              " -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' " + file.string();
  EXPECT_EQ(std::system(command.c_str()), 0) << xml.substr(0, 3000);
}

// Classes 9 and 12: names from the upload with escape sequences, line
// breaks, a right-to-left override and bytes that are not UTF-8 reach every
// format valid, and cannot forge a line in the human ones.
TEST_F(HostileRound2, UploadNamesCannotForgeOutputOrBreakItsEncoding) {
  const fs::path repository = copy_fixture("clean_cpu_variants_from_template");
  const std::string name = "x\x1b[2J\x1b]8;;evil\x07\nPASS: all clear\xe2\x80\xae\xff.o";
  std::ofstream(repository / kVariantPath / name) << "object\n";
  ASSERT_TRUE(fs::exists(repository / kVariantPath / name));
  for (const char* format : {"text", "markdown", "html", "junit", "json", "sarif"}) {
    const Outcome outcome = kcheck({"--format", format, repository.string()});
    expect_bounded(outcome, 1);
    EXPECT_EQ(outcome.out.find('\x1b'), std::string::npos) << format;
    EXPECT_EQ(outcome.out.find('\x07'), std::string::npos) << format;
    EXPECT_EQ(outcome.out.find("\nPASS: all clear"), std::string::npos) << format << ": a forged line";
    EXPECT_EQ(outcome.out.find('\xff'), std::string::npos) << format;
    const bool human = std::string(format) != "json" && std::string(format) != "sarif";  // JSON escapes controls itself
    if (human) {
      EXPECT_EQ(outcome.out.find("\xe2\x80\xae"), std::string::npos) << format << ": a bidi override";
    }
    if (std::string(format) == "junit") expect_valid_junit(outcome.out, scratch_.path());
  }
}

// Class 12: a variant directory nobody may list is KL007, not a variant
// without a package (KL003) or metadata (KM001).
TEST_F(HostileRound2, AVariantThatCannotBeListedIsKl007) {
  const fs::path repository = copy_fixture("clean_cpu_variants_from_template");
  fs::permissions(repository / kVariantPath, fs::perms::none);
  Bounds bounds;
  bounds.as_nobody = true;  // root lists anything
  const Outcome outcome = kcheck({"--format", "json", repository.string()}, bounds);
  fs::permissions(repository / kVariantPath, fs::perms(0755));
  expect_bounded(outcome, 1);
  EXPECT_EQ(finding_keys(outcome.report), std::multiset<std::string>{"KL007@" + kVariantPath + "/."})
      << outcome.out.substr(0, 3000);
  const auto reasons = messages(outcome.report, "KL007", kVariantPath + "/.");
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("cannot list directory"), std::string::npos) << reasons[0];
}

// Class 7: kernel code that forks a bomb, starts a setsid() daemon, fills the
// disk or writes outside its scratch directory at load gives a finding, and
// nothing it started or wrote outlives the run.
TEST_F(HostileRound2, KernelCodeThatRunsWildIsAFindingAndNothingOutlivesTheRun) {
  const std::string fixtures = KCHECK_HARNESS_FIXTURES_DIR;
  if (fixtures.empty()) GTEST_SKIP() << "no kcheck_worker in this build (no Torch in .venv)";
  const fs::path marker = scratch_.path() / "daemon.marker";
  // Refused (read-only in the namespace): outside /tmp, which is captured instead.
  const fs::path outside = fs::path(KCHECK_BINARY_DIR) / ("round2-outside-" + std::to_string(::getpid()));
  const fs::path shared = fs::path("/tmp") / ("kcheck-round2-outside-" + std::to_string(::getpid()));  // captured
  ::setenv("KCHECK_TEST_DAEMON_MARKER", marker.c_str(), 1);
  ::setenv("KCHECK_TEST_OUTSIDE_FILE", outside.c_str(), 1);
  ::setenv("KCHECK_TEST_SHARED_TMP_FILE", shared.c_str(), 1);
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"fork_bomb_init", "KD003", "left 31 processes running"},
      {"setsid_daemon_init", "KD003", "left 1 process running"},
      {"fill_disk_init", "KD001", "SIGXFSZ"},  // it writes 64 MiB; the limit below is 8 MiB
      // The build-tree write refused (captured too where the build tree is under /tmp).
      {"write_outside_init", "KD003", "outside its scratch directory (/tmp/"}};
  for (const auto& [name, code, message] : cases) {
    Bounds bounds;
    bounds.address_space = std::uint64_t{64} << 30;  // the worker maps libtorch
    const Outcome outcome =
        kcheck({"run", "--python", "none", "--timeout", "60", "--worker-file-size", "8M", "--pass-env",
                "KCHECK_TEST_DAEMON_MARKER", "--pass-env", "KCHECK_TEST_OUTSIDE_FILE", "--pass-env",
                "KCHECK_TEST_SHARED_TMP_FILE", "--format", "json", fixtures + "/" + name},
               bounds);
    expect_bounded(outcome, 1);
    EXPECT_EQ(codes(outcome.report).count(code), 1u) << name << ": " << outcome.out.substr(0, 3000);
    EXPECT_NE(outcome.out.find(message), std::string::npos) << name << ": " << outcome.out.substr(0, 3000);
    EXPECT_EQ(testing_support::processes_running("_" + name + "_cpu_abc123"), std::vector<std::string>{}) << name;
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));  // past the daemon's sleep, had it survived
  EXPECT_FALSE(fs::exists(marker)) << "the setsid() daemon outlived the run";
  EXPECT_FALSE(fs::exists(outside)) << "a write outside the scratch reached the machine";
  EXPECT_FALSE(fs::exists(shared)) << "a write to /tmp reached the machine";
  for (const char* variable : {"KCHECK_TEST_DAEMON_MARKER", "KCHECK_TEST_OUTSIDE_FILE", "KCHECK_TEST_SHARED_TMP_FILE"})
    ::unsetenv(variable);
}

// Class 8 through the command line: a repository holding only a nested
// a@b/c/build gets a safe report name, and the other repository's report is
// written too.
TEST_F(HostileRound2, ScanReportNamesAreSafeAndNoReportIsLost) {
  for (const fs::path& repository : {fs::path("evil") / "x" / "a@b" / "c", fs::path("owner") / "relu"}) {
    fs::create_directories((scratch_.path() / "hub" / repository).parent_path());
    copy_tree_fixture("clean_cpu_variants_from_template", scratch_.path() / "hub" / repository);
  }
  const fs::path reports = scratch_.path() / "reports";
  const Outcome outcome = kcheck(
      {"scan", "--no-cache", "--format", "json", "--report-dir", reports.string(), (scratch_.path() / "hub").string()});
  expect_bounded(outcome, 0);
  std::set<std::string> written;
  for (const auto& entry : fs::directory_iterator(reports)) written.insert(entry.path().filename().string());
  EXPECT_EQ(written.size(), 3u);
  EXPECT_TRUE(written.contains("owner--relu.json"));
  EXPECT_TRUE(written.contains("scan.json"));
  for (const std::string& name : written) EXPECT_EQ(name.find('@'), std::string::npos) << name;
}

// Class 10 through the command line: what the kernels loader or CPython
// refuses, kcheck refuses: a metadata.json with a byte order mark or a
// duplicate key (KM002), a Python file with invalid UTF-8 in a string (KP007).
TEST_F(HostileRound2, WhatTheLoaderOrCPythonRefusesIsAFinding) {
  const std::map<std::string, std::string> metadata = {{"bom", "\xEF\xBB\xBF{\"version\": 1}"},
                                                       {"duplicate", "{\"version\": 1, \"version\": 1}"}};
  for (const auto& [name, text] : metadata) {
    const fs::path kernel = copy_fixture("clean_cpu_variants_from_template");
    std::ofstream(kernel / kVariantPath / "metadata.json", std::ios::binary | std::ios::trunc) << text;
    const Outcome outcome = kcheck({"--format", "json", kernel.string()});
    expect_bounded(outcome, 1);
    EXPECT_EQ(codes(outcome.report).count("KM002"), 1u) << name << ": " << outcome.out.substr(0, 2000);
    fs::remove_all(kernel);
  }
  const fs::path kernel = copy_fixture("clean_cpu_variants_from_template");
  std::ofstream(kernel / kVariantPath / "bad_text.py", std::ios::binary) << "NAME = \"caf\xE9\"\n";
  const Outcome outcome = kcheck({"--format", "json", kernel.string()});
  expect_bounded(outcome, 1);
  EXPECT_EQ(codes(outcome.report).count("KP007"), 1u) << outcome.out.substr(0, 2000);
}

// Issue #28 item 3: where the machine refuses the sandbox's namespaces (here
// a user namespace whose limits allow none), `kcheck run` refuses to run the
// kernel's code (exit 2, saying why) unless --no-sandbox is given, and then
// the report says what did not contain it.
TEST_F(HostileRound2, WithoutNamespacesRunFailsClosedUnlessNoSandboxIsGiven) {
  const std::string fixtures = KCHECK_HARNESS_FIXTURES_DIR;
  if (fixtures.empty()) GTEST_SKIP() << "no kcheck_worker in this build (no Torch in .venv)";
  const std::string refused =
      "unshare --user --map-root-user sh -c 'for limit in pid mnt net user; do echo 0 > "
      "/proc/sys/user/max_${limit}_namespaces || exit 99; done; exec \"$0\" \"$@\"' " +
      kcheck_test::shell_quoted(KCHECK_EXECUTABLE) + " run --python none ";
  const std::string good = kcheck_test::shell_quoted(fs::path(fixtures) / "good");
  const kcheck_test::RunResult refusal = kcheck_test::run_command_in(scratch_.path(), refused + good);
  ASSERT_NE(refusal.exit_code, 99) << "cannot lower the namespace limits here: " << refusal.err;
  EXPECT_EQ(refusal.exit_code, 2) << refusal.out << refusal.err;
  EXPECT_NE(refusal.err.find("refuses new PID, mount, network namespaces"), std::string::npos) << refusal.err;
  EXPECT_NE(refusal.err.find("refusing to run it"), std::string::npos) << refusal.err;
  const kcheck_test::RunResult anyway = kcheck_test::run_command_in(scratch_.path(), refused + "--no-sandbox " + good);
  EXPECT_NE(anyway.exit_code, 2) << anyway.out << anyway.err;
  EXPECT_NE(anyway.out.find("contained: no PID namespace"), std::string::npos) << anyway.out;
  EXPECT_NE(anyway.out.find("the machine's network"), std::string::npos) << anyway.out;
  // No tmpfs bounds the scratch there: kcheck measures it and stops a worker
  // that writes past twice --worker-file-size in many files under it (issue #28).
  const kcheck_test::RunResult filled = kcheck_test::run_command_in(
      scratch_.path(), refused + "--no-sandbox --worker-file-size 1M " +
                           kcheck_test::shell_quoted(fs::path(fixtures) / "fill_scratch_init"));
  EXPECT_EQ(filled.exit_code, 1) << filled.out << filled.err;
  EXPECT_NE(filled.out.find("KD003"), std::string::npos) << filled.out;
  EXPECT_NE(filled.out.find(" entries to its scratch directory, past kcheck's bound of 2 MiB"), std::string::npos)
      << filled.out;
  EXPECT_NE(filled.out.find("kcheck measured it and stopped the worker"), std::string::npos) << filled.out;
  EXPECT_EQ(filled.out.find("error   KD001"), std::string::npos)
      << "the stop is explained, not a crash: " << filled.out;
}

// A listener on 127.0.0.1 (TCP or UDP) or an abstract Unix socket, non-blocking:
// what a contained kernel must not reach.
struct Listener {
  int fd = -1;
  std::string port;  // TCP, UDP: its port; Unix: its abstract name
  Listener(int family, int type, const std::string& abstract_name = {}) {
    fd = ::socket(family, type | SOCK_NONBLOCK, 0);
    if (family == AF_UNIX) {
      sockaddr_un address{};
      address.sun_family = AF_UNIX;
      std::memcpy(address.sun_path + 1, abstract_name.data(), abstract_name.size());
      const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + abstract_name.size());
      if (::bind(fd, reinterpret_cast<sockaddr*>(&address), length) == 0) ::listen(fd, 4);
      port = abstract_name;
      return;
    }
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), length) == 0 && type == SOCK_STREAM) ::listen(fd, 4);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    port = std::to_string(ntohs(address.sin_port));
  }
  ~Listener() { ::close(fd); }
  // Whether anything connected or arrived.
  bool reached(bool stream) const {
    if (stream) {
      const int accepted = ::accept(fd, nullptr, nullptr);
      if (accepted >= 0) ::close(accepted);
      return accepted >= 0;
    }
    char byte = 0;
    return ::recv(fd, &byte, 1, 0) >= 0;
  }
};

void expect_nothing_escapes(const Outcome& outcome, const Listener& tcp, const Listener& udp,
                            const Listener& unix_socket, const fs::path& marker, const std::string& kernel);

// Issue #28, "done when": one kernel tries every escape at once at load
// (harness fixture escape_all_init): secrets in its environment, a secret
// file and a file in the machine's /tmp, TCP, UDP and an abstract Unix socket
// on the machine, a setsid() daemon, killing its keeper, filling its scratch
// and forging its result. It reads no secret, reaches no listener, leaves
// nothing behind and forges nothing; the report names what kcheck caught
// (the daemon, the full scratch).
TEST_F(HostileRound2, AKernelTryingEveryEscapeAtOnceReachesNothingLeavesNothingAndForgesNothing) {
  const std::string fixtures = KCHECK_HARNESS_FIXTURES_DIR;
  if (fixtures.empty()) GTEST_SKIP() << "no kcheck_worker in this build (no Torch in .venv)";
  const Listener tcp(AF_INET, SOCK_STREAM), udp(AF_INET, SOCK_DGRAM);
  const Listener unix_socket(AF_UNIX, SOCK_STREAM, "kcheck-escape-" + std::to_string(::getpid()));
  const fs::path secret = scratch_.path() / "secret";
  std::ofstream(secret) << "secret\n";
  const fs::path host_tmp = fs::path("/tmp") / ("kcheck-escape-" + std::to_string(::getpid()));
  std::ofstream(host_tmp) << "secret\n";
  const fs::path marker = scratch_.path() / "daemon.marker";
  const std::map<std::string, std::string> passed = {{"KCHECK_TEST_TCP_PORT", tcp.port},
                                                     {"KCHECK_TEST_UDP_PORT", udp.port},
                                                     {"KCHECK_TEST_ABSTRACT_SOCKET", unix_socket.port},
                                                     {"KCHECK_TEST_SECRET_FILE", secret.string()},
                                                     {"KCHECK_TEST_HOST_TMP_FILE", host_tmp.string()},
                                                     {"KCHECK_TEST_DAEMON_MARKER", marker.string()}};
  std::vector<std::string> arguments = {"run", "--python", "none", "--timeout", "60", "--worker-file-size", "8M"};
  for (const auto& [name, value] : passed) {
    ::setenv(name.c_str(), value.c_str(), 1);
    arguments.insert(arguments.end(), {"--pass-env", name});
  }
  for (const char* secret_variable : {"HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"})
    ::setenv(secret_variable, "secret", 1);
  // The kernel copied under /tmp (the scratch is there): the sandbox shows it
  // inside its own fresh /tmp, and hides the rest of the machine's (issue #28 item 13).
  const fs::path kernel = scratch_.path() / "escape_all_init";
  fs::copy(fs::path(fixtures) / "escape_all_init", kernel, fs::copy_options::recursive);
  fs::permissions(scratch_.path(), fs::perms::all, fs::perm_options::add);
  arguments.insert(arguments.end(), {"--format", "json", kernel.string()});
  // As kcheck runs (root here) and, where that is root, unprivileged too
  // (a user namespace of its own).
  for (const bool as_nobody : {false, true}) {
    if (as_nobody && ::geteuid() != 0) break;
    SCOPED_TRACE(as_nobody ? "as nobody" : "as this user");
    Bounds bounds;
    bounds.address_space = std::uint64_t{64} << 30;  // the worker maps libtorch
    bounds.as_nobody = as_nobody;
    expect_nothing_escapes(kcheck(arguments, bounds), tcp, udp, unix_socket, marker, kernel.string());
  }
  for (const char* variable : {"HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"}) ::unsetenv(variable);
  for (const auto& entry : passed) ::unsetenv(entry.first.c_str());
  fs::remove(host_tmp);
}

void expect_nothing_escapes(const Outcome& outcome, const Listener& tcp, const Listener& udp,
                            const Listener& unix_socket, const fs::path& marker, const std::string& kernel) {
  std::this_thread::sleep_for(std::chrono::seconds(3));  // past the daemon's sleep, had it survived
  HostileRound2::expect_bounded(outcome, 1);
  const std::string report = outcome.out;
  EXPECT_EQ(report.find("LEAKED"), std::string::npos) << report.substr(0, 4000);
  EXPECT_EQ(HostileRound2::codes(outcome.report).count("KD001"), 0u) << report.substr(0, 4000);
  EXPECT_FALSE(tcp.reached(true));
  EXPECT_FALSE(udp.reached(false));
  EXPECT_FALSE(unix_socket.reached(true));
  EXPECT_FALSE(fs::exists(marker)) << "the setsid() daemon outlived the run";
  EXPECT_EQ(testing_support::processes_running("_escape_all_init_cpu_abc123"), std::vector<std::string>{});
  EXPECT_EQ(report.find("FORGED"), std::string::npos) << "a forged result was taken: " << report.substr(0, 4000);
  std::error_code error;
  for (const auto& entry : fs::recursive_directory_iterator(kernel, error))
    EXPECT_NE(entry.path().filename(), "result.json") << entry.path();
  const auto mentions = [&outcome](const std::string& text) {
    if (!outcome.report.contains("findings")) return false;
    return std::any_of(outcome.report["findings"].begin(), outcome.report["findings"].end(), [&](const auto& finding) {
      return finding.value("code", "") == "KD003" && finding.value("message", "").find(text) != std::string::npos;
    });
  };
  EXPECT_TRUE(mentions("running when it ended")) << report.substr(0, 4000);
  EXPECT_TRUE(mentions("filled its working directory")) << report.substr(0, 4000);
  EXPECT_NE(report.find("the rest of the machine hidden"), std::string::npos) << report.substr(0, 4000);
}

// Issue #28 item 5: the repository's kcheck-ops.toml, linked out of it (or
// too large), is not read and is a finding; the run goes on with kcheck's
// own specs, and no temporary directory is left behind.
TEST_F(HostileRound2, AKcheckOpsTomlLinkedOutOfTheRepositoryIsAFindingAndTheRunGoesOn) {
  const std::string fixtures = KCHECK_HARNESS_FIXTURES_DIR;
  if (fixtures.empty()) GTEST_SKIP() << "no kcheck_worker in this build (no Torch in .venv)";
  const fs::path repository = scratch_.path() / "good";
  fs::copy(fs::path(fixtures) / "good", repository, fs::copy_options::recursive);
  fs::create_symlink("/etc/passwd", repository / "kcheck-ops.toml");
  Bounds bounds;
  bounds.address_space = std::uint64_t{64} << 30;  // the worker maps libtorch
  const Outcome outcome = kcheck({"run", "--python", "none", "--format", "json", repository.string()}, bounds);
  expect_bounded(outcome, 1);
  const std::string expected =
      "the repository's kcheck-ops.toml was not used: kcheck-ops.toml: not a regular file inside the repository";
  EXPECT_NE(outcome.out.find(expected), std::string::npos) << outcome.out.substr(0, 3000);
  EXPECT_EQ(codes(outcome.report).count("KD007"), 2u) << "the finding, and the op it left unverified";
}

// Issue #28 item 6: a Python file of 200,000 `import mN` lines is 1000 KP002
// findings and one that counts the rest, not 200,000 (1.1 M made 4 GB).
TEST_F(HostileRound2, FindingsOfOneRuleInOneFileAreBounded) {
  const fs::path kernel = copy_fixture("clean_cpu_variants_from_template");
  {
    std::ofstream file(kernel / kVariantPath / "many_imports.py", std::ios::binary);
    for (int i = 0; i < 200000; ++i) file << "import m" << i << "\n";
  }
  const Outcome outcome = kcheck({"--select", "KP002", "--format", "json", kernel.string()});
  expect_bounded(outcome, 1);
  EXPECT_EQ(codes(outcome.report).count("KP002"), FindingSink::kMaxFindingsPerFile + 1) << outcome.out.substr(0, 2000);
  EXPECT_NE(outcome.out.find("199000 more KP002 findings in "), std::string::npos) << outcome.out.substr(0, 2000);
}

// Class 11: a planted cache entry (40 MB, or another file's facts under this
// file's key) is a miss: the verdict is the uncached one, memory stays bounded.
// Two repositories, so two entries: each is overwritten with the other's
// bytes (a valid entry under another key) and the first then grown to
// 40 MB of zeros. Neither is believed, nor read whole.
TEST_F(HostileRound2, PlantedCacheEntriesAreMissesNotFacts) {
  const std::vector<std::string> repositories = {fixture("kp006_subprocess_at_import").string(),
                                                 fixture("ke009_default_visibility_export").string()};
  const fs::path cache = scratch_.path() / "cache";
  const auto scan = [&](std::vector<std::string> options) {
    options.insert(options.begin(), {"--format", "json", "scan"});
    options.insert(options.end(), repositories.begin(), repositories.end());
    return kcheck(options);
  };
  const Outcome uncached = scan({"--no-cache"});
  expect_bounded(uncached, 1);
  expect_bounded(scan({"--cache", cache.string()}), 1);
  std::vector<fs::path> entries;
  for (const auto& entry : fs::recursive_directory_iterator(cache / "repositories"))
    if (entry.is_regular_file()) entries.push_back(entry.path());
  ASSERT_EQ(entries.size(), 2u);
  std::vector<std::string> contents;
  contents.reserve(entries.size());
  for (const fs::path& entry : entries) contents.push_back(read_all(entry));
  for (std::size_t i = 0; i < entries.size(); ++i)
    std::ofstream(entries[i], std::ios::binary | std::ios::trunc) << contents[(i + 1) % entries.size()];
  fs::resize_file(entries[0], std::uintmax_t{40} << 20);
  const Outcome planted = scan({"--stats", "--cache", cache.string()});
  expect_bounded(planted, 1);
  for (std::size_t i = 0; i < repositories.size(); ++i)
    EXPECT_EQ(finding_keys(planted.report["repositories"][i]["report"]),
              finding_keys(uncached.report["repositories"][i]["report"]));
  EXPECT_LT(planted.max_rss_kb, 256 * 1024) << "a planted entry is not read whole";
  EXPECT_NE(planted.err.find("2 cache entries rejected"), std::string::npos) << planted.err;
}

}  // namespace
}  // namespace kcheck::security_test
