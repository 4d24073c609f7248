#pragma once
// What the shared options mean, worked out once per run (issue #31): the
// output format and what it shows, the policy, the audit's options, and the
// security profile applied to both. Commands read it; none looks at the raw
// arguments again.
#include <memory>
#include <optional>
#include <string>

#include "checker/audit/audit_options.h"
#include "checker/core/policy.h"
#include "checker/core/report.h"
#include "checker/core/rule_registry.h"
#include "checker/report/render.h"
#include "checker/report/terminal_progress.h"
#include "cli/arguments.h"

namespace kcheck::cli {

// Where and how this run's reports are written.
struct Output {
  OutputFormatInfo format;
  std::string file;  // -o FILE; "" = standard output
  RenderOptions render;
};

struct Invocation {
  RuleRegistry rules;
  Output output;
  AuditOptions audit;  // the selection, strictness, bounds, libraries at hand; --security's profile applied
  // The policy --policy names, else hub (a repository's kcheck.toml may name
  // another: the audit applies it where --policy is not given); with the
  // security overlay under --security.
  Policy policy;
};

// Checks and settles the shared options: an unknown --format, --min-severity
// or rule code, or --security with an unstructured format, is refused here
// (std::invalid_argument), before any work.
Invocation settle_invocation(const ReportArguments& arguments);

// The same for commands that audit nothing (rules, report, merge): no policy is loaded.
Output settle_output(const ReportArguments& arguments, const RuleRegistry& rules);

// Renders `report` in the run's format to its output.
void emit(const Report& report, const Output& output);
void write_output(const std::string& text, const std::string& file);

// Refuses (std::invalid_argument) a command that executes kernel code under
// --security, before anything else is settled.
void refuse_under_security(const ReportArguments& arguments, const std::string& command);

// A progress line on stderr while the work runs, only when stderr is a
// terminal (not a dumb one); nothing otherwise.
std::unique_ptr<TerminalProgress> terminal_progress();

}  // namespace kcheck::cli
