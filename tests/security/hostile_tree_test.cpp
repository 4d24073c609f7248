// Hostile trees (issue #8): links out of the root and loops, hard links,
// FIFOs, sockets and devices, unreadable entries, names that are not UTF-8,
// a 10 GB sparse file, 100,000 files, deep nesting, and files that would
// block or never end (a FIFO or /dev/zero as metadata.json or build.toml).
// kcheck runs as a separate process under a CPU-time limit, an address-space
// limit (except under ASan) and a wall-clock kill; each test asserts that it
// exited 1 with the exact findings, within the bounds, and read nothing outside.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include <cstring>

#include "checker/core/rule.h"
#include "tests/security/security_test_support.h"

namespace kcheck::security_test {
namespace {

const std::string kVariant = "torch213-cxx11-cpu-x86_64-linux";
const std::string kVariantPath = "build/" + kVariant;
// Peak resident memory allowed: 1 GiB (2 GiB with ASan's shadow and quarantine).
constexpr long kMaxRssKb = (kAddressSanitizer ? 2 : 1) * 1024 * 1024;

// A copy of the clean two-variant fixture (no finding at all) that the test
// then makes hostile; readable by `nobody` for the tests that drop root.
class HostileTree : public ::testing::Test {
 protected:
  void SetUp() override { repo_ = copy_tree_fixture("clean_cpu_variants_from_template", scratch_.path() / "repo"); }

  fs::path variant() const { return repo_ / kVariantPath; }
  std::string in_variant(const std::string& name) const { return kVariantPath + "/" + name; }

  Outcome audit(std::vector<std::string> extra = {}, const Bounds& bounds = {}) {
    std::vector<std::string> arguments{"--format", "json", "--threads", "2"};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    arguments.push_back(repo_.string());
    return run_kcheck(arguments, bounds, scratch_.path());
  }

  static void expect_clean_exit_1(const Outcome& outcome) {
    EXPECT_FALSE(outcome.killed_at_wall_limit);
    EXPECT_EQ(outcome.signal, 0) << outcome.err;
    EXPECT_EQ(outcome.exit_code, 1) << outcome.err;
    EXPECT_TRUE(outcome.report.is_object()) << outcome.out.substr(0, 2000) << outcome.err;
    EXPECT_LT(outcome.max_rss_kb, kMaxRssKb);
  }

  ScratchDir scratch_;
  fs::path repo_;
};

TEST_F(HostileTree, LinksSpecialFilesAndBadNamesAreReportedAndNeverFollowed) {
  fs::create_symlink("loop_b", variant() / "loop_a");
  fs::create_symlink("loop_a", variant() / "loop_b");
  fs::create_symlink("/etc/passwd", variant() / "passwd");
  fs::create_directory_symlink("/", variant() / "root_dir");
  fs::create_directory_symlink("..", variant() / "up");
  fs::create_directory_symlink(".", variant() / "self");  // inside: never followed, so no loop
  std::ofstream(scratch_.path() / "outside.txt") << "outside\n";
  fs::create_hard_link(scratch_.path() / "outside.txt", variant() / "hard.txt");
  ASSERT_EQ(::mkfifo((variant() / "pipe").c_str(), 0644), 0);
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string socket_path = (variant() / "sock").string();
  ASSERT_LT(socket_path.size(), sizeof address.sun_path);
  std::strcpy(address.sun_path, socket_path.c_str());
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ::close(listener);
  std::ofstream(variant() / "bad\xff\xfename.txt") << "not UTF-8\n";
  // Shaped like UTF-8 but not it: an overlong '/', a UTF-16 surrogate.
  std::ofstream(variant() / "overlong\xc0\xafname.txt") << "not UTF-8\n";
  std::ofstream(variant() / "surrogate\xed\xa0\x80name.txt") << "not UTF-8\n";
  std::multiset<std::string> expected{
      "KL007@" + in_variant("loop_a"), "KL007@" + in_variant("loop_b"), "KL007@" + in_variant("passwd"),
      "KL007@" + in_variant("root_dir"), "KL007@" + in_variant("up"), "KL007@" + in_variant("hard.txt"),
      "KL007@" + in_variant("pipe"), "KL007@" + in_variant("sock"),
      // The digest does not list the four new regular files (hard.txt and the bad names).
      "KM007@" + in_variant("metadata.json"), "KM007@" + in_variant("metadata.json"),
      "KM007@" + in_variant("metadata.json"), "KM007@" + in_variant("metadata.json")};
  // A device node, where this process may make one (root in a container usually can).
  if (::mknod((variant() / "null_device").c_str(), S_IFCHR | 0644, makedev(1, 3)) == 0)
    expected.insert("KL007@" + in_variant("null_device"));

  const Outcome outcome = audit();
  expect_clean_exit_1(outcome);
  std::multiset<std::string> found = finding_keys(outcome.report);
  // The name that is not UTF-8 comes back with U+FFFD for the bad bytes (JSON is UTF-8).
  std::size_t bad_names = 0;
  for (auto it = found.begin(); it != found.end();) {
    if (it->find("name.txt") != std::string::npos && it->starts_with("KL007@")) {
      ++bad_names;
      it = found.erase(it);
    } else {
      ++it;
    }
  }
  EXPECT_EQ(bad_names, 3u) << outcome.out.substr(0, 4000);
  EXPECT_EQ(found, expected) << outcome.out.substr(0, 4000);
  EXPECT_EQ(outcome.out.find("root:x:0:0"), std::string::npos) << "read /etc/passwd through a link";
  EXPECT_EQ(outcome.out.find("outside\\n"), std::string::npos);
}

TEST_F(HostileTree, UnreadableFileAndDirectoryAreReported) {
  std::ofstream(variant() / "secret.txt") << "secret\n";
  fs::permissions(variant() / "secret.txt", fs::perms::none);
  fs::create_directory(variant() / "locked");
  std::ofstream(variant() / "locked" / "inside.txt") << "inside\n";
  fs::permissions(variant() / "locked", fs::perms::none);
  Bounds bounds;
  bounds.as_nobody = true;  // root reads anything: file modes bind only without it
  const Outcome outcome = audit({}, bounds);
  expect_clean_exit_1(outcome);
  EXPECT_EQ(finding_keys(outcome.report),
            (std::multiset<std::string>{"KL007@" + in_variant("secret.txt"), "KL007@" + in_variant("locked")}))
      << outcome.out.substr(0, 4000);
  const auto secret = messages(outcome.report, "KL007", in_variant("secret.txt"));
  ASSERT_EQ(secret.size(), 1u);
  EXPECT_NE(secret[0].find("cannot read"), std::string::npos) << secret[0];
}

TEST_F(HostileTree, FifosAndEndlessFilesAsMetadataAndBuildTomlNeitherBlockNorExhaustMemory) {
  fs::remove(variant() / "metadata.json");
  ASSERT_EQ(::mkfifo((variant() / "metadata.json").c_str(), 0644), 0);
  const fs::path other = repo_ / "build/torch212-cxx11-cpu-x86_64-linux";
  fs::remove(other / "metadata.json");
  fs::create_symlink("/dev/zero", other / "metadata.json");
  fs::remove(other / "_ops.py");
  ASSERT_EQ(::mkfifo((other / "_ops.py").c_str(), 0644), 0);
  fs::create_symlink("/dev/zero", repo_ / "build.toml");
  Bounds bounds;
  bounds.wall_seconds = 120;
  const Outcome outcome = audit({}, bounds);
  expect_clean_exit_1(outcome);
  const std::multiset<std::string> found = finding_keys(outcome.report);
  EXPECT_EQ(found.count("KL007@" + in_variant("metadata.json")), 1u) << outcome.out.substr(0, 4000);
  EXPECT_EQ(found.count("KL007@build/torch212-cxx11-cpu-x86_64-linux/metadata.json"), 1u);
  EXPECT_EQ(found.count("KL007@build/torch212-cxx11-cpu-x86_64-linux/_ops.py"), 1u);
  EXPECT_EQ(found.count("KC001@build.toml"), 1u) << outcome.out.substr(0, 4000);
  for (const std::string& message : messages(outcome.report, "KC001", "build.toml"))
    EXPECT_NE(message.find("outside the kernel directory"), std::string::npos) << message;
}

TEST_F(HostileTree, TenGigabyteSparseFileIsReportedNotRead) {
  constexpr std::uint64_t kTenGigabytes = std::uint64_t{10} << 30;
  { std::ofstream(variant() / "weights.bin"); }
  fs::resize_file(variant() / "weights.bin", kTenGigabytes);  // sparse: no disk used
  { std::ofstream(variant() / "generated.py"); }
  fs::resize_file(variant() / "generated.py", std::uint64_t{20} << 20);  // under the file bound, over the parse bound
  const Outcome outcome = audit();
  expect_clean_exit_1(outcome);
  EXPECT_EQ(finding_keys(outcome.report),
            (std::multiset<std::string>{"KL007@" + in_variant("weights.bin"), "KP007@" + in_variant("generated.py"),
                                        "KM007@" + in_variant("metadata.json")}))
      << outcome.out.substr(0, 4000);
  const auto big = messages(outcome.report, "KL007", in_variant("weights.bin"));
  ASSERT_EQ(big.size(), 1u);
  EXPECT_NE(big[0].find("10737418240 bytes, above the size bound"), std::string::npos) << big[0];
}

TEST_F(HostileTree, HundredThousandFilesStayWithinBoundsAndTheCountBoundIsReported) {
  const fs::path many = variant() / "many";
  fs::create_directory(many);
  for (int i = 0; i < 100000; ++i) {
    const int descriptor = ::open((many / ("f" + std::to_string(i))).c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_GE(descriptor, 0);
    ::close(descriptor);
  }
  const Outcome outcome = audit();
  expect_clean_exit_1(outcome);
  // One KM007 per file the digest does not list, up to the bound of findings
  // of one rule in one file (metadata.json), then one that counts the rest.
  const std::multiset<std::string> found = finding_keys(outcome.report);
  EXPECT_EQ(found.size(), FindingSink::kMaxFindingsPerFile + 1);
  EXPECT_EQ(found.count("KM007@" + in_variant("metadata.json")), FindingSink::kMaxFindingsPerFile + 1)
      << outcome.out.substr(0, 2000);
  EXPECT_NE(outcome.out.find("99000 more KM007 findings in "), std::string::npos) << outcome.out.substr(0, 2000);

  const Outcome bounded = audit({"--max-files", "1000"});
  expect_clean_exit_1(bounded);
  const auto stopped = messages(bounded.report, "KL007", in_variant("."));
  ASSERT_EQ(stopped.size(), 1u) << bounded.out.substr(0, 2000);
  EXPECT_NE(stopped[0].find("more than 1000 entries"), std::string::npos) << stopped[0];
}

TEST_F(HostileTree, DeepNestingStopsAtTheDepthBound) {
  fs::path deep = variant();
  std::string relative;
  for (int level = 0; level < 300; ++level) {
    deep /= "d";
    relative += relative.empty() ? "d" : "/d";
    fs::create_directory(deep);
  }
  std::ofstream(deep / "bottom.txt") << "bottom\n";
  std::string at_bound;
  for (int level = 0; level < 64; ++level) at_bound += level == 0 ? "d" : "/d";
  const Outcome outcome = audit();
  expect_clean_exit_1(outcome);
  EXPECT_EQ(finding_keys(outcome.report), (std::multiset<std::string>{"KL007@" + in_variant(at_bound)}))
      << outcome.out.substr(0, 2000);
  const auto nested = messages(outcome.report, "KL007", in_variant(at_bound));
  ASSERT_EQ(nested.size(), 1u);
  EXPECT_NE(nested[0].find("nested deeper than 64 levels"), std::string::npos) << nested[0];
}

}  // namespace
}  // namespace kcheck::security_test
