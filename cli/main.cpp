// The kcheck executable: parses arguments and wires them to the library.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "checker/audit/audit.h"
#include "checker/layout/tree_walker.h"
#include "checker/report/render.h"

namespace {

constexpr int kExitUsage = 2;  // kcheck could not do its job

struct AuditArguments {
  std::string path = ".";
  std::string policy = "hub";
  std::string format = "text";
  std::string output;
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  bool strict = false;
  bool security = false;
  std::string repo_id;
  unsigned threads = 0;
};

bool colour_wanted(const std::string& output) {
  if (!output.empty() || std::getenv("NO_COLOR")) return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

std::vector<std::string> split_codes(const std::vector<std::string>& items) {
  std::vector<std::string> codes;
  for (const std::string& item : items) {
    std::stringstream stream(item);
    for (std::string code; std::getline(stream, code, ',');)
      if (!code.empty()) codes.push_back(code);
  }
  return codes;
}

void write_output(const std::string& text, const std::string& output) {
  if (output.empty()) {
    std::cout << text;
    return;
  }
  std::ofstream file(output, std::ios::binary);
  file << text;
  if (!file) throw std::runtime_error("cannot write " + output);
}

// Rejects --select/--ignore entries that name no rule and are no prefix of one.
void check_codes_known(const std::vector<std::string>& codes, const kcheck::RuleRegistry& rules) {
  for (const std::string& code : codes) {
    bool known = false;
    for (const kcheck::Rule* rule : rules.rules()) known = known || rule->info().code.starts_with(code);
    if (!known) throw std::invalid_argument("no rule code matches '" + code + "' (see `kcheck rules`)");
  }
}

int run_audit_command(const AuditArguments& arguments) {
  kcheck::RuleRegistry rules = kcheck::make_rule_registry();
  auto format = kcheck::parse_output_format(arguments.format);
  if (!format) throw std::invalid_argument("unknown --format '" + arguments.format + "'");
  kcheck::AuditOptions options;
  options.selection = {split_codes(arguments.select), split_codes(arguments.ignore)};
  check_codes_known(options.selection.select, rules);
  check_codes_known(options.selection.ignore, rules);
  options.strict = arguments.strict;
  options.security = arguments.security;
  options.repo_id = arguments.repo_id;
  options.threads = arguments.threads;
  kcheck::Policy policy = kcheck::load_policy(arguments.policy);
  kcheck::Report report = kcheck::run_audit(arguments.path, policy, options, rules);
  write_output(kcheck::render_report(report, *format, {colour_wanted(arguments.output)}), arguments.output);
  return report.gate_status();
}

int run_explain_command(const std::string& code) {
  kcheck::RuleRegistry rules = kcheck::make_rule_registry();
  const kcheck::Rule* rule = rules.find(code);
  if (!rule) throw std::invalid_argument("unknown rule code '" + code + "' (see `kcheck rules`)");
  const kcheck::RuleInfo& info = rule->info();
  std::cout << info.code << " (" << kcheck::to_string(info.default_severity) << "): " << info.title << "\n\n"
            << info.explanation;
  if (!info.explanation.ends_with("\n")) std::cout << "\n";
  return 0;
}

int run_rules_command() {
  kcheck::RuleRegistry rules = kcheck::make_rule_registry();
  for (const kcheck::Rule* rule : rules.rules()) {
    const kcheck::RuleInfo& info = rule->info();
    std::string severity(kcheck::to_string(info.default_severity));
    std::cout << info.code << "  " << severity << std::string(8 - severity.size(), ' ') << info.title << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kcheck — compliance checker for Hugging Face Hub compute kernels"};
  app.set_version_flag("--version", std::string("kcheck ") + KCHECK_VERSION);
  app.require_subcommand(0, 1);

  AuditArguments audit;
  app.add_option("path", audit.path,
                 "kernel repository (audits PATH/build), build directory, one variant, or one native module")
      ->capture_default_str();
  app.add_option("--policy", audit.policy, "policy name (hub, hub-legacy) or policy file")->capture_default_str();
  app.add_option("--format", audit.format, "output format: text, json")->capture_default_str();
  app.add_option("-o,--output", audit.output, "write the report to FILE instead of standard output");
  // One value per occurrence (CODE[,CODE]), repeatable, so a following PATH is not swallowed.
  app.add_option("--select", audit.select, "only these codes or prefixes (CODE[,CODE])")
      ->allow_extra_args(false);
  app.add_option("--ignore", audit.ignore, "skip these codes or prefixes (CODE[,CODE])")
      ->allow_extra_args(false);
  app.add_flag("--strict", audit.strict, "warnings fail the gate too");
  app.add_flag("--security", audit.security, "Hub-side profile: KP006 is an error");
  app.add_option("--repo-id", audit.repo_id, "Hub repository owner/name, compared with metadata name (KM005)");
  app.add_option("--threads", audit.threads, "worker threads (0 = one per hardware thread)");

  std::string explain_code;
  CLI::App* explain = app.add_subcommand("explain", "print a rule's explanation, with the fix");
  explain->add_option("code", explain_code, "rule code, e.g. KE001")->required();
  CLI::App* rules = app.add_subcommand("rules", "list every rule code with its severity and title");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    return app.exit(help);
  } catch (const CLI::CallForAllHelp& help) {
    return app.exit(help);
  } catch (const CLI::Success& success) {
    return app.exit(success);
  } catch (const CLI::ParseError& error) {
    std::cerr << "kcheck: " << error.what() << "\n";
    return kExitUsage;
  }

  try {
    if (explain->parsed()) return run_explain_command(explain_code);
    if (rules->parsed()) return run_rules_command();
    return run_audit_command(audit);
  } catch (const std::exception& error) {
    std::cerr << "kcheck: " << error.what() << "\n";
    return kExitUsage;
  }
}
