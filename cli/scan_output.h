#pragma once
#include <string>

#include "checker/scan/scan.h"
#include "cli/invocation.h"

namespace kcheck::cli {

// Refuses (std::invalid_argument), before any work, a format that makes one
// file per repository (sarif, junit, html, ...) without `report_dir`.
void check_scan_output(const Output& output, const std::string& report_dir);

// After check_scan_output: the scan document (json) or the summary table on standard output or -o;
// with `report_dir`, one report per repository in the run's format, and
// scan.json. Returns false when a file of the report directory could not be
// written (each is named on stderr; the others and the summary are still written).
bool emit_scan(const ScanReport& scan, const Output& output, const std::string& report_dir);

}  // namespace kcheck::cli
