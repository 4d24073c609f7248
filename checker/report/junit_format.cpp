#include "checker/report/junit_format.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "checker/core/rule_families.h"
#include "checker/report/report_view.h"
#include "checker/report/xml_escape.h"

namespace kcheck {

namespace {

// The rule family is the code's letters: "KE001" -> "KE".
std::string family_of(const std::string& code) {
  std::size_t end = 0;
  while (end < code.size() && std::isalpha(static_cast<unsigned char>(code[end]))) ++end;
  return code.substr(0, end);
}

// "KE native module": the family's letters and its name (rules/families.toml).
std::string family_title(const std::string& prefix) {
  const RuleFamily* family = family_of_code(prefix);
  return family ? prefix + " " + std::string(family->name) : prefix;
}

std::string finding_line(const Finding& finding) {
  std::string line =
      std::string(to_string(finding.severity)) + " " + finding.code + " " + (finding.file.empty() ? "." : finding.file);
  if (finding.location.line) line += ":" + std::to_string(finding.location.line);
  if (!finding.location.json_pointer.empty()) line += " " + readable_json_pointer(finding.location.json_pointer);
  if (!finding.location.symbol.empty()) line += " [" + finding.location.symbol + "]";
  line += ": " + finding.message;
  if (finding.suppressed) line += " (suppressed: " + finding.suppression_reason + ")";
  return line + "\n";
}

bool fails_gate(const Finding& finding, bool strict) {
  if (finding.suppressed) return false;
  return finding.severity == Severity::error || (strict && finding.severity == Severity::warning);
}

struct Suite {
  std::string name;
  std::map<std::string, std::vector<const Finding*>> by_family;
};

// A family none of whose rules ran (--select, --ignore; KD and KB outside
// `kcheck run`/`bench`) is a skipped test case, never a pass.
// Why no rule of a family ran: the dynamic families need the kernel's code
// run; any other was left out by --select or --ignore.
std::string why_not_run(const std::string& prefix, const std::string& scope) {
  const RuleFamily* family = family_of_code(prefix);
  const std::string_view judges = family ? family->judges : "";
  if (judges == "run") return "not run: these rules judge the kernel's code as `kcheck run` or `kcheck bench` runs it";
  if (judges == "bench") return "not run: these rules judge timings only `kcheck bench` takes";
  if (scope == "source" && judges == "build")
    return "not run: these rules judge built variants, and a source repository has none yet (`kcheck build`)";
  return "not run: not selected (--select, --ignore or the repository's settings)";
}

void write_case(std::ostream& out, const std::string& suite, const std::string& family,
                const std::vector<const Finding*>& findings, bool strict, bool ran, const std::string& scope) {
  int failing = 0;
  std::string all;
  for (const Finding* finding : findings) {
    failing += fails_gate(*finding, strict);
    all += finding_line(*finding);
  }
  out << "    <testcase name=\"" << xml_escape(family_title(family)) << "\" classname=\"" << xml_escape(suite) << "\"";
  if (findings.empty()) {
    if (ran)
      out << "/>\n";
    else
      out << ">\n      <skipped message=\"" << why_not_run(family, scope) << "\"/>\n    </testcase>\n";
    return;
  }
  out << ">\n";
  if (failing)
    out << "      <failure message=\"" << failing << " finding" << (failing == 1 ? "" : "s")
        << " fail the gate\" type=\"kcheck\">" << xml_escape(all) << "</failure>\n";
  else
    out << "      <system-out>" << xml_escape(all) << "</system-out>\n";
  out << "    </testcase>\n";
}

int failing_cases(const Suite& suite, bool strict) {
  int failures = 0;
  for (const auto& [family, findings] : suite.by_family) {
    bool fails = false;
    for (const Finding* finding : findings) fails = fails || fails_gate(*finding, strict);
    failures += fails;
  }
  return failures;
}

// The kernel's own tests (`kcheck run --tests`), one suite per variant.
struct KernelTestSuite {
  std::string variant;
  std::vector<const TestOutcome*> tests;
  int failures() const {
    return static_cast<int>(std::count_if(tests.begin(), tests.end(), [](const TestOutcome* test) {
      return test->outcome == "failed" || test->outcome == "error";
    }));
  }
  int skipped() const {
    return static_cast<int>(std::count_if(tests.begin(), tests.end(), [](const TestOutcome* test) {
      return test->outcome == "skipped" || test->outcome == "xfailed";
    }));
  }
};

std::vector<KernelTestSuite> kernel_test_suites(const DynamicResults& dynamic) {
  std::vector<KernelTestSuite> suites;
  for (const TestOutcome& test : dynamic.tests) {
    if (suites.empty() || suites.back().variant != test.variant) suites.push_back({test.variant, {}});
    suites.back().tests.push_back(&test);
  }
  return suites;
}

void write_kernel_tests(std::ostream& out, const KernelTestSuite& suite) {
  const std::string name = suite.variant + " (the kernel's own tests)";
  out << "  <testsuite name=\"" << xml_escape(name) << "\" tests=\"" << suite.tests.size() << "\" failures=\""
      << suite.failures() << "\" errors=\"0\" skipped=\"" << suite.skipped() << "\">\n";
  for (const TestOutcome* test : suite.tests) {
    out << "    <testcase name=\"" << xml_escape(test->test) << "\" classname=\"" << xml_escape(name) << "\" time=\""
        << test->seconds << "\"";
    if (test->outcome == "failed" || test->outcome == "error")
      out << ">\n      <failure type=\"KD008\" message=\"" << xml_escape(test->message) << "\"/>\n    </testcase>\n";
    else if (test->outcome == "skipped" || test->outcome == "xfailed")
      out << ">\n      <skipped message=\"" << xml_escape(test->message) << "\"/>\n    </testcase>\n";
    else
      out << "/>\n";
  }
  out << "  </testsuite>\n";
}

}  // namespace

std::string render_junit(const Report& report) {
  std::set<std::string> ran;
  for (const std::string& code : report.rules_run) ran.insert(family_of(code));
  for (const Finding& finding : report.findings) ran.insert(family_of(finding.code));
  std::set<std::string> families = ran;
  for (const RuleFamily& family : rule_families()) families.insert(std::string(family.prefix));

  // Tree-level findings (no variant) get their own suite, named like the text output does.
  std::vector<Suite> suites;
  std::map<std::string, std::size_t> suite_of_variant;
  bool tree_level = report.variants.empty();
  for (const Finding& finding : report.findings) tree_level = tree_level || finding.variant.empty();
  if (tree_level) {
    suite_of_variant[""] = suites.size();
    suites.push_back({report.scope == "module" ? "module" : "tree", {}});
  }
  for (const VariantSummary& variant : report.variants) {
    if (suite_of_variant.contains(variant.name)) continue;
    suite_of_variant[variant.name] = suites.size();
    suites.push_back({variant.name, {}});
  }
  for (Suite& suite : suites)
    for (const std::string& family : families) suite.by_family[family];
  for (const Finding& finding : report.findings) {
    auto found = suite_of_variant.find(finding.variant);
    if (found == suite_of_variant.end()) {  // a finding naming a variant the report does not list
      found = suite_of_variant.emplace(finding.variant, suites.size()).first;
      suites.push_back({finding.variant, {}});
      for (const std::string& family : families) suites.back().by_family[family];
    }
    suites[found->second].by_family[family_of(finding.code)].push_back(&finding);
  }

  int total_cases = 0;
  int total_failures = 0;
  const auto skipped = [&](const Suite& suite) {
    int count = 0;
    for (const auto& [family, findings] : suite.by_family) count += findings.empty() && !ran.contains(family);
    return count;
  };
  int total_skipped = 0;
  for (const Suite& suite : suites) {
    total_cases += static_cast<int>(suite.by_family.size());
    total_failures += failing_cases(suite, report.strict);
    total_skipped += skipped(suite);
  }
  const std::vector<KernelTestSuite> kernel_tests = kernel_test_suites(report.dynamic);
  for (const KernelTestSuite& suite : kernel_tests) {
    total_cases += static_cast<int>(suite.tests.size());
    total_failures += suite.failures();
    total_skipped += suite.skipped();
  }
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"kcheck\" tests=\"" << total_cases << "\" failures=\"" << total_failures
      << "\" errors=\"0\" skipped=\"" << total_skipped << "\">\n";
  for (const Suite& suite : suites) {
    out << "  <testsuite name=\"" << xml_escape(suite.name) << "\" tests=\"" << suite.by_family.size()
        << "\" failures=\"" << failing_cases(suite, report.strict) << "\" errors=\"0\" skipped=\"" << skipped(suite)
        << "\">\n"
        << "    <properties>\n"
        << "      <property name=\"policy\" value=\"" << xml_escape(report.policy_name) << "\"/>\n"
        << "      <property name=\"audited_root\" value=\"" << xml_escape(report.audited_root) << "\"/>\n"
        << "    </properties>\n";
    for (const auto& [family, findings] : suite.by_family)
      write_case(out, suite.name, family, findings, report.strict, ran.contains(family), report.scope);
    out << "  </testsuite>\n";
  }
  for (const KernelTestSuite& suite : kernel_tests) write_kernel_tests(out, suite);
  out << "</testsuites>\n";
  return out.str();
}

}  // namespace kcheck
