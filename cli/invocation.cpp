#include "cli/invocation.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "checker/audit/audit.h"
#include "checker/audit/security_profile.h"
#include "checker/elf/needed_closure.h"

namespace kcheck::cli {

namespace {

namespace fs = std::filesystem;

bool colour_wanted(const std::string& output) {
  if (!output.empty() || std::getenv("NO_COLOR")) return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

// The least severity text, github and concise list: --min-severity, else
// text hides notes unless --show-notes, the line formats list everything.
Severity least_shown(const ReportArguments& arguments, OutputFormat format) {
  if (!arguments.min_severity.empty()) {
    if (auto severity = parse_severity(arguments.min_severity)) return *severity;
    throw std::invalid_argument("unknown --min-severity '" + arguments.min_severity + "' (note, warning, error)");
  }
  if (format == OutputFormat::text && !arguments.show_notes) return Severity::warning;
  return Severity::note;
}

OutputFormatInfo output_format(const ReportArguments& arguments) {
  const std::optional<OutputFormatInfo> format = find_output_format(arguments.format);
  if (!format) {
    std::string names;
    for (const std::string& name : output_format_names()) names += (names.empty() ? "" : ", ") + name;
    throw std::invalid_argument("unknown --format '" + arguments.format + "' (one of " + names + ")");
  }
  return *format;
}

// Rejects --select/--ignore entries that name no rule and are no prefix of one.
void check_codes_known(const std::vector<std::string>& codes, const RuleRegistry& rules) {
  for (const std::string& code : codes)
    if (!rules.names_a_rule(code))
      throw std::invalid_argument("no rule code matches '" + code + "' (see `kcheck rules`)");
}

AuditOptions audit_options(const ReportArguments& arguments, const RuleRegistry& rules) {
  AuditOptions options;
  options.selection = {split_list(arguments.select), split_list(arguments.ignore)};
  check_codes_known(options.selection.select, rules);
  check_codes_known(options.selection.ignore, rules);
  options.strict = arguments.strict;
  options.apply_repository_suppressions = !arguments.no_repo_config;
  options.local_build = arguments.local_build;
  options.policy_from_command_line = !arguments.policy.empty();
  options.repo_id = arguments.repo_id;
  options.threads = arguments.threads;
  for (const std::string& directory : arguments.library_paths) options.library_directories.emplace_back(directory);
  if (!options.library_directories.empty())
    for (fs::path& directory : system_library_directories())
      options.library_directories.push_back(std::move(directory));
  return options;
}

// Bounds the command line sets explicitly win over a profile's.
void apply_walk_bounds(const ReportArguments& arguments, WalkLimits& limits) {
  if (arguments.max_file_size) limits.max_file_size = arguments.max_file_size;
  if (arguments.max_files) limits.max_entries = arguments.max_files;
  if (arguments.max_depth) limits.max_depth = arguments.max_depth;
}

}  // namespace

Output settle_output(const ReportArguments& arguments, const RuleRegistry& rules) {
  Output output{output_format(arguments), arguments.output, {{colour_wanted(arguments.output)}, rule_catalogue(rules)}};
  const OutputFormat format = output.format.format;
  output.render.text.least_shown = least_shown(arguments, format);  // a bad --min-severity is refused first
  // Hub side: nothing from the upload reaches a terminal or a markup renderer as is.
  if (arguments.security && !output.format.structured)
    throw std::invalid_argument("--security writes structured output only: --format json, sarif or junit");
  const bool line_format = format == OutputFormat::github || format == OutputFormat::concise;
  const fs::path reader_root = arguments.sarif_root.empty() ? fs::current_path() : fs::absolute(arguments.sarif_root);
  if (!arguments.sarif_root.empty() || line_format)
    output.render.source_root = reader_root;  // clickable from where kcheck ran
  output.render.text.relative_to = reader_root;
  output.render.text.quiet = arguments.quiet;
  output.render.rules_url = arguments.rules_url;
  return output;
}

Invocation settle_invocation(const ReportArguments& arguments) {
  RuleRegistry rules = make_rule_registry();
  AuditOptions audit = audit_options(arguments, rules);  // unknown rule codes first, as before
  Output output = settle_output(arguments, rules);
  Policy policy = load_policy(arguments.policy.empty() ? "hub" : arguments.policy);
  for (const auto& [code, severity] : policy.rule_severity)
    if (!rules.find(code))
      throw std::invalid_argument("policy " + policy.source + ": [severity] names no rule: '" + code +
                                  "' (see `kcheck rules`)");
  if (arguments.security) apply_security_profile(audit, policy);
  apply_walk_bounds(arguments, audit.limits);
  return {std::move(rules), std::move(output), std::move(audit), std::move(policy)};
}

void write_output(const std::string& text, const std::string& file) {
  if (file.empty()) {
    std::cout << text;
    return;
  }
  std::ofstream stream(file, std::ios::binary);
  stream << text;
  if (!stream) throw std::runtime_error("cannot write " + file);
}

void emit(const Report& report, const Output& output) {
  write_output(render_report(report, output.format.format, output.render), output.file);
}

void refuse_under_security(const ReportArguments& arguments, const std::string& command) {
  if (arguments.security) throw std::invalid_argument(security_refusal(command));
}

std::unique_ptr<TerminalProgress> terminal_progress() {
  const char* term = std::getenv("TERM");
  if (::isatty(STDERR_FILENO) != 1 || (term && std::string_view(term) == "dumb")) return nullptr;
  return std::make_unique<TerminalProgress>(std::cerr, [] { return std::chrono::steady_clock::now(); });
}

}  // namespace kcheck::cli
