#pragma once
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/report.h"
#include "checker/core/rule_registry.h"
#include "checker/scan/facts_cache.h"
#include "checker/scan/repositories.h"

namespace kcheck {

inline constexpr const char* kScanSchemaVersion = "1.0";

struct ScanOptions {
  AuditOptions audit;                     // selection, strict, security; threads bounds the whole scan
  std::filesystem::path cache_directory;  // empty: no cache on disk
  // A file changed less than this before a scan is recorded only with its
  // SHA-256, checked before the record serves again (facts_cache.h).
  std::chrono::nanoseconds cache_racy_window = std::chrono::seconds(2);
  std::optional<Shard> shard;
  // Time one revision's audit may take (collect and judge) before it is
  // reported as an error entry and the scan goes on; nullopt: no budget.
  std::optional<std::chrono::steady_clock::duration> repository_timeout = kDefaultRepositoryTimeout;

  static constexpr std::chrono::seconds kDefaultRepositoryTimeout{300};
};

// One repository's (or one revision's) audit.
struct RepositoryReport {
  std::string id;
  std::string revision;
  std::string path;
  std::string error;  // why it could not be audited (then `report` is empty and it fails)
  Report report;

  bool failed() const { return !error.empty() || report.gate_status() != 0; }
};

// What `kcheck scan` produced: one report per repository, and the totals.
// `kcheck merge` combines the documents of the shards of one scan.
struct ScanReport {
  std::string schema_version = kScanSchemaVersion;
  std::string tool_version;
  std::string policy_name;
  std::optional<Shard> shard;  // set on a shard's document only
  // Whether the repositories' own kcheck.toml suppressions could apply (not
  // under --security): where not, `kcheck merge` counts every finding a
  // shard marks suppressed (issue #28).
  bool repository_config_applied = false;
  std::vector<RepositoryReport> repositories;  // sorted by id, then revision

  int failed_repositories() const;
  SeverityCounts totals() const;
  int gate_status() const { return failed_repositories() ? 1 : 0; }  // 1 when any repository fails
};

struct ScanStats {
  std::size_t repositories = 0;
  FactsCacheStats cache;
};

// What the cached facts depend on besides a file's bytes: the analyser build
// (analyser_build_id()), the kcheck version and the policy (its source, and
// its text when it is a file of the user's).
std::string cache_context(const Policy& policy);

// Audits every repository (in `options.shard`, when set) in parallel: the
// repositories of distinct ids concurrently, each one's files in parallel,
// with at most options.audit.threads threads in all. The revisions of one id
// are collected together so KO005 can compare them.
ScanReport run_scan(const std::vector<RepositoryInput>& repositories, const Policy& policy, const ScanOptions& options,
                    const RuleRegistry& rules, ScanStats* stats = nullptr);

nlohmann::json scan_report_to_json(const ScanReport& scan);
ScanReport scan_report_from_json(const nlohmann::json& json);  // throws std::runtime_error

// Combines shard documents of one scan: the same tool version and policy,
// each repository once; when the inputs are shards, every shard 0..n-1 of
// one count exactly once. Throws std::invalid_argument saying what is wrong.
ScanReport merge_scan_reports(const std::vector<ScanReport>& parts);

// The aggregate as a table: one row per repository with its counts and
// verdict, then the totals ("text" or "markdown").
std::string render_scan_summary(const ScanReport& scan, bool markdown);

}  // namespace kcheck
