// `kcheck report FILE`: a saved JSON report rendered again; exits as its gate.
#include "checker/audit/audit.h"
#include "checker/report/saved_report.h"
#include "cli/commands.h"
#include "cli/invocation.h"

namespace kcheck::cli {

void ReportCommand::add_to(CLI::App& parent) {
  app = add_command(parent, "report", "render a saved JSON report (--format json) again");
  app->add_option("file", file, "report written by kcheck --format json")->required();
}

int ReportCommand::run(const ReportArguments& arguments) const {
  const Output output = settle_output(arguments, make_rule_registry());  // a bad --format is refused before reading
  const Report report = load_saved_report(file);
  emit(report, output);
  return report.gate_status();
}

}  // namespace kcheck::cli
