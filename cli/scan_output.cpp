#include "cli/scan_output.h"

#include <iostream>

#include "checker/scan/report_directory.h"

namespace kcheck::cli {

void check_scan_output(const Output& output, const std::string& report_dir) {
  const OutputFormat format = output.format.format;
  if (format != OutputFormat::json && format != OutputFormat::text && format != OutputFormat::markdown &&
      report_dir.empty())
    throw std::invalid_argument("--format " + std::string(output.format.name) +
                                " makes one file per repository: add --report-dir DIR");
}

bool emit_scan(const ScanReport& scan, const Output& output, const std::string& report_dir) {
  const OutputFormat format = output.format.format;
  bool all_written = true;
  if (!report_dir.empty()) {
    RenderOptions options = output.render;
    options.text.colour = false;  // files, never a terminal
    auto render = [&](const RepositoryReport& repository) { return render_report(repository.report, format, options); };
    for (const ReportWriteFailure& failure :
         write_report_directory(scan, report_dir, render, std::string(output.format.extension))) {
      std::cerr << "kcheck scan: " << failure.file.string() << ": " << failure.reason << "\n";
      all_written = false;
    }
  }
  if (format == OutputFormat::json) {
    write_output(scan_report_to_json(scan).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                 output.file);
    return all_written;
  }
  write_output(render_scan_summary(scan, format == OutputFormat::markdown), output.file);
  return all_written;
}

}  // namespace kcheck::cli
