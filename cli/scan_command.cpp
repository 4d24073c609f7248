// `kcheck scan ROOT...`: every repository under the roots, with a facts cache
// (docs/scan.md); the scan's output is shared with `kcheck merge`.
#include <iostream>

#include "checker/scan/report_directory.h"
#include "checker/scan/scan.h"
#include "cli/commands.h"
#include "cli/hub_input.h"
#include "cli/invocation.h"
#include "cli/scan_output.h"

namespace kcheck::cli {

namespace fs = std::filesystem;

namespace {

// Hub ids among the roots: their cached snapshots, as ORG/NAME@COMMIT under a
// root of this run's own (`hub_root`, removed when it ends). A snapshot
// without build/ holds nothing a scan audits: refused, never left out in silence.
std::vector<fs::path> scan_roots(const std::vector<std::string>& given, const WalkLimits& limits,
                                 RemovedAtEnd& hub_root) {
  std::vector<fs::path> roots;
  for (const std::string& root : given) {
    const std::optional<HubReference> hub = hub_reference(root);
    if (!hub) {
      roots.emplace_back(root);
      continue;
    }
    if (hub_root.path.empty()) {
      hub_root.path = private_hub_directory();
      roots.push_back(hub_root.path);
    }
    const HubSnapshot snapshot = hub_snapshot(*hub);
    const fs::path copy =
        materialise_snapshot(snapshot, hub_root.path / (hub->repo_id + "@" + snapshot.commit), limits);
    std::error_code error;
    if (!fs::is_directory(copy / "build", error))
      throw std::invalid_argument(hub->repo_id + "@" + snapshot.commit +
                                  " in the cache holds no build/: nothing to scan");
  }
  return roots;
}

void print_stats(const ScanStats& stats) {
  std::cerr << "kcheck scan: " << stats.repositories << " repositories; facts: " << stats.cache.facts_analysed
            << " files analysed, " << stats.cache.facts_reused << " from the cache; " << stats.cache.files_hashed
            << " files hashed, " << stats.cache.hashes_reused << " hashes from the cache; "
            << stats.cache.entries_written << " cache entries written";
  if (stats.cache.write_failures) std::cerr << "; " << stats.cache.write_failures << " cache writes failed";
  if (stats.cache.entries_rejected) std::cerr << "; " << stats.cache.entries_rejected << " cache entries rejected";
  std::cerr << "\n";
}

}  // namespace

void ScanCommand::add_to(CLI::App& parent) {
  app = add_command(parent, "scan", "audit every kernel repository under the roots, with a facts cache (docs/scan.md)");
  app->add_option("roots", roots,
                  "repositories, or directories holding them (NAME@REVISION), or Hub ids ORG/NAME[@REVISION] "
                  "in the local Hugging Face cache")
      ->required();
  app->add_option("--cache", cache_dir, "facts cache directory (default: ~/.cache/kcheck)");
  app->add_flag("--no-cache", no_cache, "keep no facts on disk");
  app->add_option("--shard", shard, "audit only part INDEX of COUNT (0-based), e.g. 2/8");
  app->add_option("--report-dir", report_dir, "write one report per repository in --format, and scan.json, to DIR");
  app->add_flag("--stats", stats, "print what the cache did on standard error");
  app->add_option("--repo-timeout", repo_timeout_seconds,
                  "seconds one repository's audit may take before it is reported as an error (default 300; 0: none)");
}

int ScanCommand::run(const ReportArguments& arguments) const {
  Invocation invocation = settle_invocation(arguments);
  check_scan_output(invocation.output, report_dir);
  ScanOptions options;
  options.audit = invocation.audit;
  if (!shard.empty()) options.shard = parse_shard(shard);
  if (!no_cache) options.cache_directory = cache_dir.empty() ? default_cache_directory() : cache_dir;
  options.repository_timeout = std::nullopt;
  if (repo_timeout_seconds) options.repository_timeout = std::chrono::seconds(repo_timeout_seconds);
  RemovedAtEnd hub_root;
  const std::vector<fs::path> scanned = scan_roots(roots, options.audit.limits, hub_root);
  ScanStats scan_stats;
  const ScanReport scan =
      run_scan(discover_repositories(scanned), invocation.policy, options, invocation.rules, &scan_stats);
  const bool reports_written = emit_scan(scan, invocation.output, report_dir);
  if (stats) print_stats(scan_stats);
  return reports_written ? scan.gate_status() : kExitUsage;
}

}  // namespace kcheck::cli
