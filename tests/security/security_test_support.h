#pragma once
// Runs the kcheck executable on hostile input inside hard bounds (CPU time,
// address space where the build allows it, a wall-clock kill) and reports
// how it ended and its peak resident memory: the tests assert the bounds held
// by the process surviving them, never by timing it.
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace kcheck::security_test {

namespace fs = std::filesystem;

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;  // ASan reserves terabytes of address space
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

struct Bounds {
  int cpu_seconds = 120;
  int wall_seconds = 300;
  std::uint64_t address_space = std::uint64_t{4} << 30;  // not applied under ASan
  bool as_nobody = false;                                // drop root, so that file modes bind
};

struct Outcome {
  int exit_code = -1;  // -1 when a signal ended it
  int signal = 0;
  bool killed_at_wall_limit = false;
  long max_rss_kb = 0;
  std::string out;
  std::string err;
  nlohmann::json report;  // stdout as JSON when it parses
};

inline std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A scratch directory removed with everything in it (made writable first).
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "kcheck-hostile-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
    fs::permissions(path_, fs::perms::all, fs::perm_options::add);
  }
  ~ScratchDir() {
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(path_, fs::directory_options::skip_permission_denied, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error))
      if (it->is_directory(error) && !it->is_symlink(error))
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, error);
    fs::remove_all(path_, error);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline Outcome run_kcheck(const std::vector<std::string>& arguments, const Bounds& bounds, const fs::path& scratch) {
  const fs::path out = scratch / "kcheck.out", err = scratch / "kcheck.err";
  std::vector<std::string> argv{KCHECK_EXECUTABLE};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  const pid_t child = ::fork();
  if (child == 0) {
    const int out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (out_fd < 0 || err_fd < 0 || null_fd < 0) ::_exit(126);
    ::dup2(null_fd, 0);
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    const rlimit cpu{static_cast<rlim_t>(bounds.cpu_seconds), static_cast<rlim_t>(bounds.cpu_seconds)};
    ::setrlimit(RLIMIT_CPU, &cpu);
    if (!kAddressSanitizer) {
      const rlimit memory{bounds.address_space, bounds.address_space};
      ::setrlimit(RLIMIT_AS, &memory);
    }
    if (bounds.as_nobody && ::geteuid() == 0) {
      const passwd* nobody = ::getpwnam("nobody");
      if (nobody == nullptr || ::setgroups(0, nullptr) != 0 || ::setgid(nobody->pw_gid) != 0 ||
          ::setuid(nobody->pw_uid) != 0)
        ::_exit(125);
    }
    std::vector<char*> raw;
    raw.reserve(argv.size() + 1);
    for (std::string& argument : argv) raw.push_back(argument.data());
    raw.push_back(nullptr);
    ::execv(raw[0], raw.data());
    ::_exit(127);
  }
  Outcome outcome;
  int status = 0;
  rusage usage{};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(bounds.wall_seconds);
  while (::wait4(child, &status, WNOHANG, &usage) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child, SIGKILL);
      outcome.killed_at_wall_limit = true;
      ::wait4(child, &status, 0, &usage);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  outcome.max_rss_kb = usage.ru_maxrss;
  outcome.out = read_all(out);
  outcome.err = read_all(err);
  outcome.report = nlohmann::json::parse(outcome.out, nullptr, false);
  return outcome;
}

// A writable copy of the tree fixture `name` at `destination`, without its
// expected.toml, readable by `nobody` (for the tests that drop root), for a
// test to make hostile.
inline fs::path copy_tree_fixture(const std::string& name, const fs::path& destination) {
  fs::copy(fs::path(KCHECK_TREE_FIXTURES_DIR) / name, destination,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::remove(destination / "expected.toml");
  for (const auto& entry : fs::recursive_directory_iterator(destination))
    fs::permissions(entry.path(), entry.is_directory() ? fs::perms(0755) : fs::perms(0644));
  fs::permissions(destination, fs::perms(0755));
  return destination;
}

// "CODE@file" for each finding of a JSON report, as the tree fixtures write them.
inline std::multiset<std::string> finding_keys(const nlohmann::json& report) {
  std::multiset<std::string> keys;
  if (!report.is_object() || !report.contains("findings")) return keys;
  for (const nlohmann::json& finding : report["findings"])
    keys.insert(finding.value("code", "?") + "@" + finding.value("file", ""));
  return keys;
}

// The messages of findings with `code` on `file`.
inline std::vector<std::string> messages(const nlohmann::json& report, const std::string& code,
                                         const std::string& file) {
  std::vector<std::string> found;
  if (!report.is_object() || !report.contains("findings")) return found;
  for (const nlohmann::json& finding : report["findings"])
    if (finding.value("code", "") == code && finding.value("file", "") == file)
      found.push_back(finding.value("message", ""));
  return found;
}

}  // namespace kcheck::security_test
