#pragma once
#include <filesystem>

#include "checker/core/report.h"

namespace kcheck {

// Reads a report saved with `--format json` (`kcheck report FILE`), so it can
// be rendered again without re-running anything. Throws std::runtime_error
// naming the file when it cannot be read or is not a kcheck JSON report.
Report load_saved_report(const std::filesystem::path& path);

}  // namespace kcheck
