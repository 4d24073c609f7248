#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "checker/scan/scan.h"

namespace kcheck {

// File names (without the extension) for the repositories' reports in one
// report directory, in the order of `repositories`. Repository ids and
// revisions come from directory names of untrusted uploads, so a name keeps
// only [A-Za-z0-9._-] of them ('/' becomes "--", the revision follows '@');
// a name that had to be changed (another byte, a leading '.', an empty id,
// more than 120 bytes), that two repositories share (compared without case,
// for case-insensitive file systems) or that is "scan" (the scan document)
// ends with '-' and 12 characters of a SHA-256 of the original id@revision.
// The names are distinct and depend only on the repositories given.
std::vector<std::string> report_file_stems(const std::vector<RepositoryReport>& repositories);

struct ReportWriteFailure {
  std::filesystem::path file;
  std::string reason;
};

// Writes `render(repository)` to DIRECTORY/STEM.EXTENSION for every
// repository that could be audited, then the scan document to
// DIRECTORY/scan.json. A file that cannot be written is listed and the others
// are still written; an empty result means every file was written.
std::vector<ReportWriteFailure> write_report_directory(
    const ScanReport& scan, const std::filesystem::path& directory,
    const std::function<std::string(const RepositoryReport&)>& render, const std::string& extension);

}  // namespace kcheck
