// `kcheck config KERNEL_DIR`: build.toml's KC rules.
#include "checker/audit/audit.h"
#include "cli/commands.h"
#include "cli/invocation.h"

namespace kcheck::cli {

void ConfigCommand::add_to(CLI::App& parent) {
  app = add_command(parent, "config", "check a kernel source tree's build.toml (KC rules)");
  app->add_option("kernel_dir", kernel_dir, "kernel source directory holding build.toml")->capture_default_str();
}

int ConfigCommand::run(const ReportArguments& arguments) const {
  Invocation invocation = settle_invocation(arguments);
  if (invocation.audit.selection.select.empty()) invocation.audit.selection.select = {"KC"};
  const TreeFacts tree = collect_source_facts(kernel_dir);
  if (!tree.build_config->present) throw std::invalid_argument("no build.toml in " + kernel_dir);
  Report report = judge(tree, invocation.policy, invocation.audit, invocation.rules);
  report.input = kernel_dir;
  emit(report, invocation.output);
  return report.gate_status();
}

}  // namespace kcheck::cli
