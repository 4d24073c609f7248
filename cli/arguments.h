#pragma once
// The options every kcheck command takes, as CLI11 parsed them: raw strings
// and numbers. What they mean is worked out once, in Invocation (invocation.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace kcheck::cli {

constexpr int kExitUsage = 2;  // kcheck could not do its job

struct ReportArguments {
  std::string policy;  // "": the repository's `policy` setting, else hub
  std::string format = "text";
  bool format_given = false;  // --format was on the command line
  std::string output;
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  bool strict = false;
  bool security = false;
  bool no_repo_config = false;             // suppressions in the repository are reported, not applied
  bool local_build = false;                // required variants this machine cannot build are a note (KL006)
  std::vector<std::string> library_paths;  // --library-path: libraries at hand for KE015
  std::string repo_id;
  unsigned threads = 0;
  // Walk bounds; 0 keeps the default (kcheck::WalkLimits; a lower file size under --security).
  std::uint64_t max_file_size = 0;
  std::size_t max_files = 0;
  std::size_t max_depth = 0;
  std::string sarif_root;  // "": SARIF URIs relative to the audited root
  // What text, github and concise list: --show-notes, --min-severity; --quiet.
  bool show_notes = false;
  std::string min_severity;  // "": text hides notes, the line formats list everything
  bool quiet = false;
  std::string rules_url;  // where docs/rules.md is published: SARIF helpUri
};

// Adds the shared options to the top-level app (every command falls through to it).
void add_report_options(CLI::App& app, ReportArguments& arguments);

// "a,b" "c" -> a, b, c: the values of a repeatable CODE[,CODE] option.
std::vector<std::string> split_list(const std::vector<std::string>& items);

}  // namespace kcheck::cli
