#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checker/core/report.h"
#include "checker/core/rule.h"
#include "checker/core/rule_registry.h"
#include "checker/report/text_format.h"

namespace kcheck {

enum class OutputFormat { text, json, sarif, junit, markdown, html, github, concise };

// One output format: its --format name, the extension of a file of it
// (`kcheck scan --report-dir`), and whether it is structured (json, sarif,
// junit: no upload text reaches a terminal or a markup renderer as is, the
// only ones --security writes).
struct OutputFormatInfo {
  OutputFormat format;
  std::string_view name;
  std::string_view extension;
  bool structured;
};

// The format named `name`, or none; every format's name, in the order --help lists them.
std::optional<OutputFormatInfo> find_output_format(std::string_view name);
std::vector<std::string> output_format_names();

// What a format may need besides the Report itself: the terminal style, and
// the rule catalogue (titles, explanations, default severities) that SARIF
// describes its rules with. Passed in, never looked up globally.
struct RenderOptions {
  TextStyle text;
  std::vector<RuleInfo> rules;
  // The repository root: SARIF URIs relative to it (--sarif-root), and the
  // paths of the line formats (github, concise; the current directory by default).
  std::optional<std::filesystem::path> source_root;
  // Where docs/rules.md is published (--rules-url): SARIF's helpUri per rule.
  std::string rules_url;
};

// The catalogue of a registry, ordered by code.
std::vector<RuleInfo> rule_catalogue(const RuleRegistry& registry);

// Renders the report in the given format; every format reads only the Report
// (and the options), never the audited tree.
std::string render_report(const Report& report, OutputFormat format, const RenderOptions& options);

}  // namespace kcheck
