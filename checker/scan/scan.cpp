#include "checker/scan/scan.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "checker/audit/audit.h"
#include "checker/report/display_text.h"
#include "checker/facts/kernel_identity.h"
#include "checker/support/work_pool.h"
#include "checker/metadata/digest.h"
#include "checker/report/markdown_format.h"
#include "checker/scan/analyser_build_id.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

void add_unique(std::vector<std::string>& names, const std::string& name) {
  if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

// A variant as KO005 compares it: its content digest (over the files the
// metadata digest covers, with the hashes the digest check used) and the
// namespaces it registers.
RevisionBuild describe_build(const VariantFacts& variant, const std::string& revision, FileFactsCache& cache) {
  RevisionBuild build{revision, variant.directory_name, "", {}};
  std::string listing;
  for (const FileEntry* file : digest_covered_files(variant))
    listing += file->relative_path + '\0' + cache.content_sha256(*file).value_or("(unreadable)") + '\n';
  build.content_digest = hash_bytes(listing, DigestAlgorithm::sha256);
  for (const NativeModuleFacts& module : variant.native_modules)
    if (module.elf)
      for (const std::string& name : module.elf->torch_library_namespaces) add_unique(build.namespaces, name);
  if (const std::optional<OpsPyNamespace> ops = ops_py_namespace(variant)) add_unique(build.namespaces, ops->name);
  return build;
}

// Gives every revision's facts the builds of all the revisions of its id.
void attach_revision_builds(const std::vector<RepositoryInput>& revisions, std::vector<std::optional<TreeFacts>>& trees,
                            FileFactsCache& cache) {
  std::vector<RevisionBuild> builds;
  for (std::size_t i = 0; i < trees.size(); ++i) {
    if (!trees[i]) continue;
    for (const VariantFacts& variant : trees[i]->variants)
      builds.push_back(describe_build(variant, revisions[i].revision, cache));
  }
  for (std::size_t i = 0; i < trees.size(); ++i) {
    if (!trees[i]) continue;
    trees[i]->revision = revisions[i].revision;
    trees[i]->revision_builds = builds;
  }
}

// The audit options of one revision: the scan's, with the deadline of what
// is left of its own budget (`spent`: what its collection already used; the
// other revisions' work never counts against it).
AuditOptions revision_options(const AuditOptions& options, const ScanOptions& scan,
                              AuditDeadline::Clock::duration spent = {}) {
  AuditOptions bounded = options;
  if (scan.repository_timeout)
    bounded.deadline = AuditDeadline::after(*scan.repository_timeout - spent, *scan.repository_timeout);
  return bounded;
}

// The revisions of one repository id: collected together, then judged. A
// revision that cannot be read, or runs past its budget, is an error entry.
std::vector<RepositoryReport> scan_repository(const std::vector<RepositoryInput>& revisions, const Policy& policy,
                                              const AuditOptions& options, const ScanOptions& scan,
                                              const RuleRegistry& rules, FileFactsCache& cache) {
  std::vector<RepositoryReport> reports(revisions.size());
  std::vector<std::optional<TreeFacts>> trees(revisions.size());
  std::vector<AuditDeadline::Clock::duration> collection_time(revisions.size());
  for (std::size_t i = 0; i < revisions.size(); ++i) {
    reports[i].id = revisions[i].id;
    reports[i].revision = revisions[i].revision;
    reports[i].path = revisions[i].path.string();
    const auto started = AuditDeadline::Clock::now();
    try {
      trees[i] = collect_facts(revisions[i].path, revision_options(options, scan), rules, &cache);
    } catch (const std::exception& error) {
      reports[i].error = error.what();
    }
    collection_time[i] = AuditDeadline::Clock::now() - started;
  }
  if (revisions.size() > 1) attach_revision_builds(revisions, trees, cache);
  for (std::size_t i = 0; i < revisions.size(); ++i) {
    if (!trees[i]) continue;
    try {
      reports[i].report = judge(*trees[i], policy, revision_options(options, scan, collection_time[i]), rules);
      reports[i].report.input = reports[i].path;
    } catch (const std::exception& error) {  // the budget (AuditTimeout), or a rule that failed
      reports[i].report = Report{};
      reports[i].error = error.what();
    }
    trees[i].reset();  // facts of large libraries are not kept longer than needed
  }
  return reports;
}

// What names a repository's cache entry: its id and where its revisions are
// (an entry holds the records of all of them, by absolute path).
std::string repository_cache_key(const std::vector<RepositoryInput>& revisions) {
  std::string key = revisions.front().id;
  for (const RepositoryInput& revision : revisions)
    key += '\n' + fs::absolute(revision.path).lexically_normal().string();
  return key;
}

// Consecutive runs of one id in the sorted repository list.
std::vector<std::vector<RepositoryInput>> group_by_id(const std::vector<RepositoryInput>& repositories) {
  std::vector<std::vector<RepositoryInput>> groups;
  for (const RepositoryInput& repository : repositories) {
    if (groups.empty() || groups.back().front().id != repository.id) groups.emplace_back();
    groups.back().push_back(repository);
  }
  return groups;
}

std::string read_file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void sort_repositories(std::vector<RepositoryReport>& repositories) {
  std::sort(repositories.begin(), repositories.end(), [](const RepositoryReport& a, const RepositoryReport& b) {
    return std::tie(a.id, a.revision) < std::tie(b.id, b.revision);
  });
}

}  // namespace

int ScanReport::failed_repositories() const {
  return static_cast<int>(std::count_if(repositories.begin(), repositories.end(),
                                        [](const RepositoryReport& repository) { return repository.failed(); }));
}

SeverityCounts ScanReport::totals() const {
  SeverityCounts totals;
  for (const RepositoryReport& repository : repositories) {
    totals.errors += repository.report.summary.errors;
    totals.warnings += repository.report.summary.warnings;
    totals.notes += repository.report.summary.notes;
    totals.suppressed += repository.report.summary.suppressed;
  }
  return totals;
}

std::string cache_context(const Policy& policy) {
  std::string context = std::string("kcheck ") + KCHECK_VERSION + "\nbuild " + std::string(analyser_build_id()) +
                        "\npolicy " + policy.name + " " + policy.source;
  std::error_code error;
  if (fs::is_regular_file(policy.source, error))
    context += " " + hash_bytes(read_file_text(policy.source), DigestAlgorithm::sha256);
  return context;
}

ScanReport run_scan(const std::vector<RepositoryInput>& repositories, const Policy& policy, const ScanOptions& options,
                    const RuleRegistry& rules, ScanStats* stats) {
  const std::vector<RepositoryInput> selected =
      options.shard ? select_shard(repositories, *options.shard) : repositories;
  const std::vector<std::vector<RepositoryInput>> groups = group_by_id(selected);
  FactsCacheDirectory cache_directory(options.cache_directory, cache_context(policy), options.cache_racy_window);

  // One pool for everything: repositories side by side, and the files of
  // all of them, largest first, on whichever thread is free (one huge
  // repository still gets every thread).
  WorkPool pool(options.audit.threads);
  AuditOptions per_repository = options.audit;
  per_repository.pool = &pool;
  std::vector<std::vector<RepositoryReport>> grouped(groups.size());
  const std::vector<std::uint64_t> in_given_order(groups.size(), 1);
  pool.run(WorkKind::composite, in_given_order, [&](std::size_t i) {
    RepositoryFactsCache cache(cache_directory, repository_cache_key(groups[i]));
    grouped[i] = scan_repository(groups[i], policy, per_repository, options, rules, cache);
    cache.save();
  });

  ScanReport scan;
  scan.tool_version = KCHECK_VERSION;
  scan.repository_config_applied = options.audit.apply_repository_suppressions;
  scan.policy_name = policy.name;
  scan.shard = options.shard;
  for (std::vector<RepositoryReport>& group : grouped)
    for (RepositoryReport& repository : group) scan.repositories.push_back(std::move(repository));
  sort_repositories(scan.repositories);
  if (stats) *stats = {selected.size(), cache_directory.stats()};
  return scan;
}

nlohmann::json scan_report_to_json(const ScanReport& scan) {
  nlohmann::json repositories = nlohmann::json::array();
  for (const RepositoryReport& repository : scan.repositories) {
    nlohmann::json entry = {{"id", repository.id},
                            {"revision", repository.revision},
                            {"path", repository.path},
                            {"verdict", repository.failed() ? "fail" : "pass"}};
    if (repository.error.empty())
      entry["report"] = report_to_json(repository.report);
    else
      entry["error"] = repository.error;
    repositories.push_back(std::move(entry));
  }
  nlohmann::json json = {{"kind", "kcheck-scan"},
                         {"schema_version", scan.schema_version},
                         {"tool_version", scan.tool_version},
                         {"policy", scan.policy_name},
                         {"repository_config_applied", scan.repository_config_applied},
                         {"summary",
                          {{"repositories", scan.repositories.size()},
                           {"failed", scan.failed_repositories()},
                           {"counts", counts_to_json(scan.totals())}}},
                         {"repositories", std::move(repositories)}};
  if (scan.shard) json["shard"] = {{"index", scan.shard->index}, {"count", scan.shard->count}};
  return json;
}

ScanReport scan_report_from_json(const nlohmann::json& json) {
  try {
    if (!json.is_object() || json.value("kind", "") != "kcheck-scan")
      throw std::runtime_error("not a kcheck scan report (no \"kind\": \"kcheck-scan\")");
    ScanReport scan;
    scan.schema_version = json.at("schema_version").get<std::string>();
    scan.tool_version = json.at("tool_version").get<std::string>();
    scan.policy_name = json.at("policy").get<std::string>();
    // Absent (an older or a forged document): taken as not applied, the stricter reading.
    scan.repository_config_applied = json.value("repository_config_applied", false);
    if (json.contains("shard"))
      scan.shard = Shard{json["shard"].at("index").get<unsigned>(), json["shard"].at("count").get<unsigned>()};
    for (const nlohmann::json& entry : json.at("repositories")) {
      RepositoryReport repository;
      repository.id = entry.at("id").get<std::string>();
      repository.revision = entry.at("revision").get<std::string>();
      repository.path = entry.at("path").get<std::string>();
      if (entry.contains("error"))
        repository.error = entry["error"].get<std::string>();
      else
        repository.report = report_from_json(entry.at("report"));
      scan.repositories.push_back(std::move(repository));
    }
    return scan;
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string("malformed kcheck scan report: ") + error.what());
  }
}

namespace {

void unsuppress_all(Report& report) {
  bool changed = false;
  for (Finding& finding : report.findings)
    if (finding.suppressed) {
      finding.suppressed = false;
      finding.suppression_reason.clear();
      changed = true;
    }
  if (changed) finalise_report(report);
}

}  // namespace

ScanReport merge_scan_reports(const std::vector<ScanReport>& parts) {
  if (parts.empty()) throw std::invalid_argument("nothing to merge");
  ScanReport merged;
  merged.tool_version = parts.front().tool_version;
  merged.policy_name = parts.front().policy_name;
  std::set<unsigned> shard_indexes;
  const bool sharded = parts.front().shard.has_value();
  for (const ScanReport& part : parts) {
    if (part.tool_version != merged.tool_version || part.policy_name != merged.policy_name)
      throw std::invalid_argument("reports of different scans: kcheck " + part.tool_version + " policy " +
                                  part.policy_name + " vs kcheck " + merged.tool_version + " policy " +
                                  merged.policy_name);
    if (part.shard.has_value() != sharded || (sharded && part.shard->count != parts.front().shard->count))
      throw std::invalid_argument("reports of different shardings cannot be merged");
    if (sharded && !shard_indexes.insert(part.shard->index).second)
      throw std::invalid_argument("shard " + std::to_string(part.shard->index) + "/" +
                                  std::to_string(part.shard->count) + " given twice");
    for (RepositoryReport repository : part.repositories) {
      // A scan that applied no repository's config (the Hub's, --security)
      // suppressed nothing: a finding a shard marks suppressed is counted.
      if (!part.repository_config_applied) unsuppress_all(repository.report);
      merged.repositories.push_back(std::move(repository));
    }
  }
  if (sharded) {
    for (unsigned index = 0; index < parts.front().shard->count; ++index)
      if (!shard_indexes.contains(index))
        throw std::invalid_argument("shard " + std::to_string(index) + "/" +
                                    std::to_string(parts.front().shard->count) + " is missing");
  }
  merged.repository_config_applied =
      std::all_of(parts.begin(), parts.end(), [](const ScanReport& part) { return part.repository_config_applied; });
  sort_repositories(merged.repositories);
  for (std::size_t i = 1; i < merged.repositories.size(); ++i) {
    const RepositoryReport& a = merged.repositories[i - 1];
    const RepositoryReport& b = merged.repositories[i];
    if (a.id == b.id && a.revision == b.revision)
      throw std::invalid_argument("repository " + a.id + (a.revision.empty() ? "" : "@" + a.revision) +
                                  " is in two of the reports");
  }
  return merged;
}

std::string render_scan_summary(const ScanReport& scan, bool markdown) {
  std::ostringstream out;
  auto row = [&](const std::string& name, const std::string& verdict, const SeverityCounts& counts) {
    if (markdown) {
      out << "| " << name << " | " << verdict << " | " << counts.errors << " | " << counts.warnings << " | "
          << counts.notes << " |\n";
    } else {
      out << std::left << std::setw(48) << name << ' ' << std::setw(6) << verdict << std::right << std::setw(7)
          << counts.errors << std::setw(9) << counts.warnings << std::setw(7) << counts.notes << "\n";
    }
  };
  if (markdown)
    out << "| repository | verdict | errors | warnings | notes |\n| --- | --- | ---: | ---: | ---: |\n";
  else
    out << std::left << std::setw(48) << "repository"
        << " verdict  errors warnings  notes\n";
  for (const RepositoryReport& repository : scan.repositories) {
    std::string name = display_safe(repository.id + (repository.revision.empty() ? "" : "@" + repository.revision));
    if (markdown) name = markdown_escape(name);  // a repository id may hold '|' or HTML (issue #28 item 12)
    row(name, repository.error.empty() ? (repository.failed() ? "fail" : "pass") : "error", repository.report.summary);
  }
  const SeverityCounts totals = scan.totals();
  out << (markdown ? "\n" : "") << scan.repositories.size() << " repositories, " << scan.failed_repositories()
      << " failing; " << totals.errors << " errors, " << totals.warnings << " warnings, " << totals.notes << " notes\n";
  for (const RepositoryReport& repository : scan.repositories)
    if (!repository.error.empty())
      out << (markdown ? "- " : "")
          << (markdown ? markdown_escape(display_safe(repository.id)) : display_safe(repository.id))
          << ": could not be audited: "
          << (markdown ? markdown_escape(display_safe(repository.error)) : display_safe(repository.error)) << "\n";
  return out.str();
}

}  // namespace kcheck
