#pragma once
// Scratch directories and fixture copies shared by the scan tests.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "checker/audit/audit.h"
#include "checker/scan/scan.h"

namespace kcheck::scan_test {

namespace fs = std::filesystem;

// A fresh directory per test under the build tree.
inline fs::path scratch_dir() {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path dir = fs::path(KCHECK_BINARY_DIR) / "scan-test-scratch" / test->test_suite_name() / test->name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

inline fs::path fixture(const std::string& name) { return fs::path(KCHECK_TREE_FIXTURES_DIR) / name; }

// Copies a tree fixture (regular files and directories only) to `destination`.
inline void copy_fixture(const std::string& name, const fs::path& destination) {
  fs::create_directories(destination);
  fs::copy(fixture(name), destination, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
}

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void append_to_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << text;
}

struct ScanRun {
  ScanReport report;
  ScanStats stats;
};

inline ScanRun scan(const std::vector<fs::path>& roots, const fs::path& cache, std::optional<Shard> shard = {},
                    unsigned threads = 2, CodeSelection selection = {}) {
  const RuleRegistry rules = make_rule_registry();
  const Policy policy = load_policy("hub");
  ScanOptions options;
  options.audit.threads = threads;
  options.audit.selection = std::move(selection);
  options.cache_directory = cache;
  options.cache_racy_window = std::chrono::nanoseconds(0);  // fixtures are copied just before: racy otherwise
  options.shard = shard;
  ScanRun run;
  run.report = run_scan(discover_repositories(roots), policy, options, rules, &run.stats);
  return run;
}

// Waits out the cache's racy window (2 s after a file's last change,
// docs/scan.md), so that a kcheck process scanning the fixtures copied just
// before records their facts.
inline void wait_until_settled() { std::this_thread::sleep_for(std::chrono::milliseconds(2100)); }

inline std::string to_json_text(const ScanReport& report) { return scan_report_to_json(report).dump(1); }

}  // namespace kcheck::scan_test
