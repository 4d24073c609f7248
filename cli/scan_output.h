#pragma once
#include <string>

#include "checker/scan/scan.h"
#include "cli/invocation.h"

namespace kcheck::cli {

// The scan document (json) or the summary table on standard output or -o;
// with `report_dir`, one report per repository in the run's format, and
// scan.json. Returns false when a file of the report directory could not be
// written (each is named on stderr; the others and the summary are still written).
bool emit_scan(const ScanReport& scan, const Output& output, const std::string& report_dir);

}  // namespace kcheck::cli
