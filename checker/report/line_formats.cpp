#include "checker/report/line_formats.h"

#include "checker/report/display_text.h"
#include "checker/report/report_view.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;

// GitHub's escaping of workflow command data; `property` adds ':' and ','.
std::string github_escaped(const std::string& text, bool property) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      case ':':
        out += property ? "%3A" : ":";
        break;
      case ',':
        out += property ? "%2C" : ",";
        break;
      default:
        out += c;
    }
  }
  return out;
}

const char* github_command(Severity severity) {
  switch (severity) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    default:
      return "notice";
  }
}

}  // namespace

std::string render_github(const Report& unsafe, const std::optional<fs::path>& relative_to, Severity least_shown) {
  const Report report = display_safe_report(unsafe);
  std::string out;
  for (const Finding& finding : report.findings) {
    if (finding.suppressed || finding.severity < least_shown) continue;
    out += "::" + std::string(github_command(finding.severity)) + " ";
    if (!finding.file.empty()) {
      out += "file=" + github_escaped(shown_path(report, finding, relative_to), true) + ",";
      if (finding.location.line) out += "line=" + std::to_string(finding.location.line) + ",";
      if (finding.location.column) out += "col=" + std::to_string(finding.location.column) + ",";
    }
    std::string message = finding.message;
    if (!finding.location.symbol.empty()) message = "[" + finding.location.symbol + "] " + message;
    // The code is the annotation's title; the message does not repeat it.
    out += "title=" + github_escaped(finding.code, true) + "::" + github_escaped(message, false) + "\n";
  }
  return out;
}

std::string render_concise(const Report& unsafe, const std::optional<fs::path>& relative_to, Severity least_shown) {
  const Report report = display_safe_report(unsafe);
  std::string out;
  for (const Finding& finding : report.findings) {
    if (finding.suppressed || finding.severity < least_shown) continue;
    out += shown_path(report, finding, relative_to);
    if (finding.location.line) out += ":" + std::to_string(finding.location.line);
    out += ": " + finding.code + " ";
    if (!finding.location.symbol.empty()) out += "[" + finding.location.symbol + "] ";
    out += finding.message + "\n";
  }
  return out;
}

}  // namespace kcheck
