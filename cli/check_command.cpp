// `kcheck check PATH` (and `kcheck PATH`): the static audit.
#include "checker/audit/audit.h"
#include "checker/scan/hub_cache.h"
#include "cli/commands.h"
#include "cli/hub_input.h"
#include "cli/invocation.h"

namespace kcheck::cli {

namespace fs = std::filesystem;

void CheckCommand::add_to(CLI::App& parent) {
  app = add_command(parent, "check", "audit a kernel (the same as `kcheck PATH`)");
  app->add_option("path", path,
                  "kernel repository (audits PATH/build), build directory, one variant, or one native module; a "
                  "source repository without build/ gets the checks that need no build")
      ->capture_default_str();
  app->add_flag("--sources", sources_only,
                "check the kernel's sources (build.toml, the Python package, the C++ op registrations) even "
                "where build/ exists: what the pre-commit hook runs");
}

// With `sources_only`, the checks of a source repository even where it has a
// build/ (the pre-commit hook's).
int CheckCommand::run(const ReportArguments& arguments) const {
  Invocation invocation = settle_invocation(arguments);
  AuditOptions& options = invocation.audit;
  auto progress = terminal_progress();
  options.progress = progress.get();
  std::error_code error;
  if (sources_only && !fs::exists(fs::path(path) / "build.toml", error))
    throw std::invalid_argument("no build.toml in " + path + ": --sources checks a kernel source repository");
  // `kcheck check ORG/NAME[@REVISION]`: the snapshot in the local Hugging Face
  // cache, copied into a directory of this run's own (removed at the end) and
  // audited as an upload: its variants, never only its sources.
  const std::optional<HubReference> hub = hub_reference(path);
  fs::path audited = path;
  RemovedAtEnd hub_copy;
  if (hub) {
    const HubSnapshot snapshot = hub_snapshot(*hub);
    hub_copy.path = private_hub_directory();
    audited = materialise_snapshot(snapshot, hub_copy.path / "snapshot", options.limits);
    if (options.repo_id.empty()) options.repo_id = hub->repo_id;
    options.whole_download_command = download_command(*hub);
  }
  const Policy& policy = invocation.policy;
  const RuleRegistry& rules = invocation.rules;
  Report report = sources_only ? run_source_audit(audited, policy, options, rules)
                  : hub        ? run_audit_of_build(audited, policy, options, rules)
                               : run_audit(audited, policy, options, rules);
  if (hub) report.input = hub->repo_id + "@" + hub->revision;
  if (progress) progress->finish();
  emit(report, invocation.output);
  return report.gate_status();
}

}  // namespace kcheck::cli
