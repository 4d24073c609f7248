#include "checker/report/report_view.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <tuple>

namespace kcheck {

namespace {

VariantSection& section_for(std::vector<VariantSection>& sections, const std::string& variant) {
  auto found = std::find_if(sections.begin(), sections.end(), [&](const VariantSection& section) {
    return section.variant == variant && section.shared_by.empty();
  });
  if (found != sections.end()) return *found;
  sections.push_back({variant, variant});
  return sections.back();
}

// A variant's finding as every variant would have it: the variant's directory
// in its path written `*`.
Finding as_shared(const Finding& finding, const std::map<std::string, std::string>& directory_of) {
  Finding shared = finding;
  shared.variant.clear();
  auto directory = directory_of.find(finding.variant);
  if (directory == directory_of.end() || directory->second.empty()) return shared;
  const std::string& prefix = directory->second;
  if (shared.file == prefix)
    shared.file = prefix.substr(0, prefix.rfind('/') + 1) + "*";
  else if (shared.file.starts_with(prefix + "/"))
    shared.file = prefix.substr(0, prefix.rfind('/') + 1) + "*" + shared.file.substr(prefix.size());
  return shared;
}

using FindingIdentity =
    std::tuple<std::string, Severity, std::string, std::string, int, int, std::string, std::string, bool, std::string>;

FindingIdentity identity(const Finding& finding) {
  return {finding.code,
          finding.severity,
          finding.message,
          finding.file,
          finding.location.line,
          finding.location.column,
          finding.location.json_pointer,
          finding.location.symbol,
          finding.suppressed,
          finding.suppression_reason};
}

struct SharedFinding {
  Finding finding;
  std::vector<std::string> variants;
  std::vector<const Finding*> originals;
};

// Findings of two or more variants that differ only in the variant, grouped by
// the set of variants that repeat them.
std::map<std::vector<std::string>, std::vector<SharedFinding>> findings_shared_by_variants(const Report& report) {
  std::map<std::string, std::string> directory_of;
  for (const VariantSummary& variant : report.variants) directory_of[variant.name] = variant.path;
  std::vector<SharedFinding> candidates;
  std::map<FindingIdentity, std::vector<std::size_t>> candidates_by_identity;
  for (const Finding& finding : report.findings) {
    if (finding.variant.empty()) continue;
    Finding shared = as_shared(finding, directory_of);
    std::vector<std::size_t>& same = candidates_by_identity[identity(shared)];
    auto open = std::find_if(same.begin(), same.end(), [&](std::size_t index) {
      const std::vector<std::string>& variants = candidates[index].variants;
      return std::find(variants.begin(), variants.end(), finding.variant) == variants.end();
    });
    if (open == same.end()) {
      same.push_back(candidates.size());
      candidates.push_back({std::move(shared), {finding.variant}, {&finding}});
    } else {
      candidates[*open].variants.push_back(finding.variant);
      candidates[*open].originals.push_back(&finding);
    }
  }
  std::map<std::vector<std::string>, std::vector<SharedFinding>> by_variants;
  for (SharedFinding& candidate : candidates) {
    if (candidate.variants.size() < 2) continue;
    std::sort(candidate.variants.begin(), candidate.variants.end());
    by_variants[candidate.variants].push_back(std::move(candidate));
  }
  return by_variants;
}

std::string shared_title(const std::vector<std::string>& variants, const Report& report) {
  if (variants.size() == report.variants.size() && report.variants.size() > 2)
    return "every variant (" + std::to_string(variants.size()) + ")";
  std::string title = std::to_string(variants.size()) + " variants: ";
  for (std::size_t i = 0; i < variants.size(); ++i) title += (i ? ", " : "") + variants[i];
  return title;
}

}  // namespace

std::vector<VariantSection> variant_sections(const Report& report) {
  std::vector<VariantSection> sections;
  bool tree_level = std::any_of(report.findings.begin(), report.findings.end(),
                                [](const Finding& finding) { return finding.variant.empty(); });
  if (tree_level) sections.push_back({"", report.scope == "module" ? "module" : "tree"});
  std::vector<const Finding*> shown_shared;
  for (auto& [variants, shared] : findings_shared_by_variants(report)) {
    auto findings = std::make_shared<std::vector<Finding>>();
    for (SharedFinding& item : shared) {
      findings->push_back(std::move(item.finding));
      shown_shared.insert(shown_shared.end(), item.originals.begin(), item.originals.end());
    }
    VariantSection section{"", shared_title(variants, report)};
    section.shared_by = variants;
    section.shared_findings = findings;
    for (const Finding& finding : *findings) section.findings.push_back(&finding);
    sections.push_back(std::move(section));
  }
  std::sort(shown_shared.begin(), shown_shared.end());
  for (const VariantSummary& variant : report.variants) {
    if (variant.name.empty()) continue;
    section_for(sections, variant.name).summary = &variant;
  }
  for (const Finding& finding : report.findings)
    if (!std::binary_search(shown_shared.begin(), shown_shared.end(), &finding))
      section_for(sections, finding.variant).findings.push_back(&finding);
  for (const OpCheck& check : report.dynamic.op_checks)
    section_for(sections, check.variant).op_checks.push_back(&check);
  for (const BenchmarkResult& result : report.dynamic.benchmarks)
    section_for(sections, result.variant).benchmarks.push_back(&result);
  for (const VariantRun& run : report.dynamic.runs) section_for(sections, run.variant).run = &run;
  for (const OpVerification& op : report.dynamic.ops) section_for(sections, op.variant).ops.push_back(&op);
  for (const TestOutcome& test : report.dynamic.tests) section_for(sections, test.variant).tests.push_back(&test);
  for (const DeviceLimits& device : report.dynamic.devices) {
    VariantSection& section = section_for(sections, device.variant);
    if (!section.device) section.device = &device;
  }
  return sections;
}

ListedFindings listed_findings(const VariantSection& section) {
  ListedFindings listed;
  for (const Finding* finding : section.findings) {
    if (!section.benchmarks.empty() && finding->code == "KB001" && !finding->suppressed)
      ++listed.benchmark_notes;
    else
      listed.findings.push_back(finding);
  }
  return listed;
}

std::vector<OpBenchmarks> benchmarks_by_op(const std::vector<const BenchmarkResult*>& results) {
  std::vector<OpBenchmarks> groups;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const BenchmarkResult* result : results) {
    auto [found, added] = index.try_emplace({result->variant, result->op}, groups.size());
    if (added)
      groups.push_back(
          {result->variant, result->op, result->eager.empty() ? result->eager_problem : result->eager, {}});
    groups[found->second].results.push_back(result);
  }
  for (OpBenchmarks& group : groups)
    std::stable_sort(group.results.begin(), group.results.end(),
                     [](const BenchmarkResult* a, const BenchmarkResult* b) {
                       return std::tie(a->dtype, a->bytes) < std::tie(b->dtype, b->bytes);
                     });
  return groups;
}

std::string plural(int count, std::string_view word) {
  return std::to_string(count) + " " + std::string(word) + (count == 1 ? "" : "s");
}

std::string readable_json_pointer(std::string_view pointer) {
  if (pointer.empty()) return "";
  std::string readable;
  auto token_shown = [&readable](std::string token) {
    const bool index = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
    // jq's bare names: [A-Za-z_][A-Za-z0-9_]* (`.python-depends` would be a subtraction).
    const bool name = !token.empty() && !std::isdigit(static_cast<unsigned char>(token[0])) &&
                      std::all_of(token.begin(), token.end(),
                                  [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (readable.empty() && !name) readable = ".";  // jq: .[0], .["a/b"] at the start
    if (index) {
      readable += "[" + token + "]";
    } else if (name) {
      readable += "." + token;
    } else {
      std::string quoted;
      for (char c : token) quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
      readable += "[\"" + quoted + "\"]";
    }
  };
  std::size_t at = pointer.front() == '/' ? 1 : 0;
  while (at <= pointer.size()) {
    const std::size_t end = std::min(pointer.find('/', at), pointer.size());
    std::string token;
    for (std::size_t i = at; i < end; ++i) {
      if (pointer[i] == '~' && i + 1 < end && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        token += pointer[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        token += pointer[i];
      }
    }
    token_shown(std::move(token));
    at = end + 1;
  }
  return readable;
}

std::string finding_place(const Finding& finding) {
  std::string place = finding.file.empty() ? "." : finding.file;
  if (finding.location.line) place += ":" + std::to_string(finding.location.line);
  if (!finding.location.json_pointer.empty()) place += " " + readable_json_pointer(finding.location.json_pointer);
  if (!finding.location.symbol.empty()) place += " [" + finding.location.symbol + "]";
  return place;
}

std::string shown_path(const Report& report, const Finding& finding,
                       const std::optional<std::filesystem::path>& relative_to) {
  if (!relative_to) return finding.file.empty() ? "." : finding.file;
  const std::filesystem::path root(report.audited_root);
  const std::filesystem::path file = (finding.file.empty() ? root : root / finding.file).lexically_normal();
  const std::filesystem::path relative = file.lexically_relative(relative_to->lexically_normal());
  if (relative.empty() || relative.begin()->string() == "..") return file.string();
  return relative.string();
}

std::string format_number(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

}  // namespace kcheck
