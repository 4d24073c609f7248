#pragma once
// The findings a fixture's expected.toml declares, and the exact comparison
// with what kcheck produced: each expected finding takes one produced finding
// of the same code and severity (and place, and message text, where given);
// a missing one and an extra one both fail.
//
// An entry of `expect` is "CODE/severity", "CODE/severity@file" or
// "CODE/severity@file:line" ("KE001/error@_relu_cpu_0a1b2c3.abi3.so"), or a
// table { finding = "...", message = "text the message holds" }.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "checker/core/finding.h"
#include "checker/core/severity.h"

namespace kcheck::testing {

struct ExpectedFinding {
  std::string spec;  // as written
  std::string code;
  std::string severity;
  std::optional<std::string> file;
  std::optional<int> line;
  std::string message_contains;  // "" when any message will do
  std::string problem;           // why the entry cannot be read; "" when it can
};

inline ExpectedFinding parse_expected_finding(const std::string& spec, std::string message_contains = "") {
  ExpectedFinding expected{.spec = spec, .message_contains = std::move(message_contains)};
  const std::size_t slash = spec.find('/');
  const std::size_t at = spec.find('@');
  if (slash == std::string::npos || (at != std::string::npos && at < slash)) {
    expected.problem = "'" + spec + "' names no severity (write CODE/severity[@file[:line]])";
    return expected;
  }
  expected.code = spec.substr(0, slash);
  expected.severity = spec.substr(slash + 1, at == std::string::npos ? std::string::npos : at - slash - 1);
  if (!parse_severity(expected.severity))
    expected.problem = "'" + spec + "': '" + expected.severity + "' is not a severity";
  if (at != std::string::npos) {
    std::string place = spec.substr(at + 1);
    const std::size_t colon = place.rfind(':');
    if (colon != std::string::npos) {
      expected.line = std::stoi(place.substr(colon + 1));
      place.resize(colon);
    }
    expected.file = place;
  }
  return expected;
}

// The `expect` array of an expected.toml.
inline std::vector<ExpectedFinding> read_expected_findings(const toml::table& expected_toml) {
  std::vector<ExpectedFinding> findings;
  if (const toml::array* expect = expected_toml["expect"].as_array()) {
    for (const toml::node& item : *expect) {
      if (const toml::table* table = item.as_table())
        findings.push_back(parse_expected_finding((*table)["finding"].value_or(std::string("?")),
                                                  (*table)["message"].value_or(std::string())));
      else
        findings.push_back(parse_expected_finding(item.value_or(std::string("?"))));
    }
  }
  return findings;
}

inline std::string describe_finding(const Finding& finding) {
  return finding.code + "/" + std::string(to_string(finding.severity)) + "@" + finding.file +
         (finding.location.line ? ":" + std::to_string(finding.location.line) : "") + " (" + finding.message + ")";
}

inline bool finding_matches(const ExpectedFinding& expected, const Finding& finding) {
  return finding.code == expected.code && to_string(finding.severity) == expected.severity &&
         (!expected.file || finding.file == *expected.file) &&
         (!expected.line || finding.location.line == *expected.line) &&
         finding.message.find(expected.message_contains) != std::string::npos;
}

// What the comparison found: expected findings not produced, produced
// findings not expected, and entries that could not be read. All empty: the
// findings are exactly the expected ones.
struct FindingComparison {
  std::string missing;
  std::string unexpected;
  std::string unreadable;
  bool exact() const { return missing.empty() && unexpected.empty() && unreadable.empty(); }
};

inline FindingComparison compare_findings(std::vector<ExpectedFinding> expected, const Findings& produced) {
  FindingComparison comparison;
  std::vector<const Finding*> unmatched;
  for (const Finding& finding : produced) unmatched.push_back(&finding);
  // Most specific expectations first, so a bare code cannot take their finding.
  auto specificity = [](const ExpectedFinding& e) {
    return (e.line ? 4 : e.file ? 2 : 0) + (e.message_contains.empty() ? 0 : 1);
  };
  std::stable_sort(expected.begin(), expected.end(),
                   [&](const ExpectedFinding& a, const ExpectedFinding& b) { return specificity(a) > specificity(b); });
  for (const ExpectedFinding& entry : expected) {
    if (!entry.problem.empty()) {
      comparison.unreadable += "\n  " + entry.problem;
      continue;
    }
    auto it =
        std::find_if(unmatched.begin(), unmatched.end(), [&](const Finding* f) { return finding_matches(entry, *f); });
    if (it == unmatched.end()) {
      comparison.missing +=
          "\n  " + entry.spec +
          (entry.message_contains.empty() ? "" : " with message containing \"" + entry.message_contains + "\"");
    } else {
      unmatched.erase(it);
    }
  }
  for (const Finding* finding : unmatched) comparison.unexpected += "\n  " + describe_finding(*finding);
  return comparison;
}

}  // namespace kcheck::testing
