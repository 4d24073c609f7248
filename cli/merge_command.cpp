// `kcheck merge SHARD.json...`: one scan document from the shards' documents.
#include <fstream>

#include "checker/audit/audit.h"
#include "checker/scan/scan.h"
#include "cli/commands.h"
#include "cli/invocation.h"
#include "cli/scan_output.h"

namespace kcheck::cli {

void MergeCommand::add_to(CLI::App& parent) {
  app = add_command(parent, "merge", "combine the JSON documents of `kcheck scan --shard` runs");
  app->add_option("files", files, "scan documents (kcheck scan --format json)")->required();
}

int MergeCommand::run(const ReportArguments& given) const {
  // The merged document is what array jobs collect (docs/scan.md): json unless --format says otherwise.
  ReportArguments arguments = given;
  if (!arguments.format_given) arguments.format = "json";
  const Output output = settle_output(arguments, make_rule_registry());
  check_scan_output(output, "");
  std::vector<ScanReport> parts;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file);
    nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
    if (json.is_discarded()) throw std::runtime_error(file + ": not JSON");
    try {
      parts.push_back(scan_report_from_json(json));
    } catch (const std::exception& error) {
      throw std::runtime_error(file + ": " + error.what());
    }
  }
  const ScanReport merged = merge_scan_reports(parts);
  emit_scan(merged, output, "");
  return merged.gate_status();
}

}  // namespace kcheck::cli
