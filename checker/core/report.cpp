#include "checker/core/report.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "checker/support/json_members.h"

namespace kcheck {

// The report's JSON, one line per type (checker/support/json_members.h):
// keys named as the members, none forgotten.
KCHECK_JSON_MEMBERS(SeverityCounts, KCHECK_JSON_OPTIONAL(""), errors, warnings, notes, suppressed)
KCHECK_JSON_MEMBERS(VariantSummary, KCHECK_JSON_OPTIONAL(""), name, path, backend, counts)
KCHECK_JSON_MEMBERS(DeviceLimits, KCHECK_JSON_OPTIONAL("matmul_dtype"), variant, name, backend, copy_bandwidth_gbs,
                    matmul_tflops, matmul_dtype)
KCHECK_JSON_MEMBERS(OpCheck, KCHECK_JSON_OPTIONAL(""), variant, op, dtype, shape, max_abs_error, relative_error, passed)
// Before 1.7 no pairing (paired_*).
KCHECK_JSON_MEMBERS(CompiledBaseline, KCHECK_JSON_OPTIONAL("problem paired_median_us paired_spread_us paired_problem"),
                    mode, median_us, spread_us, compile_seconds, problem, paired_median_us, paired_spread_us,
                    paired_problem)
KCHECK_JSON_MEMBERS(BenchmarkResult,
                    // Before 1.4 no eager baseline, before 2 no compiled one (explain_missing_baselines),
                    // before 1.8 one output block (output_placements).
                    KCHECK_JSON_OPTIONAL("eager eager_problem eager_median_us eager_spread_us speedup compiled "
                                         "compiled_problem compile_speedup eager_python_median_us output_placements"),
                    variant, op, dtype, shape, repetitions, median_us, spread_us, bytes, achieved_gbs, percent_of_peak,
                    eager, eager_problem, eager_median_us, eager_spread_us, speedup, compiled, compiled_problem,
                    compile_speedup, eager_python_median_us, output_placements)
KCHECK_JSON_MEMBERS(OpVerification, KCHECK_JSON_OPTIONAL("reported_as"), variant, op, schema, dispatch_keys, how,
                    verified, reference, cases_run, cases_passed, unsupported_dtypes, why, reported_as)
KCHECK_JSON_MEMBERS(VariantRun, KCHECK_JSON_OPTIONAL("python torch worker"), variant, ran, reason, ops_registered,
                    ops_verified, python, torch, worker)
KCHECK_JSON_MEMBERS(TestOutcome, KCHECK_JSON_OPTIONAL(""), variant, test, outcome, message, seconds)

namespace {

void count(SeverityCounts& counts, const Finding& finding) {
  if (finding.suppressed) {
    ++counts.suppressed;
    return;
  }
  switch (finding.severity) {
    case Severity::error:
      ++counts.errors;
      break;
    case Severity::warning:
      ++counts.warnings;
      break;
    case Severity::note:
      ++counts.notes;
      break;
  }
}

nlohmann::json location_to_json(const Location& location) {
  nlohmann::json json = nlohmann::json::object();
  if (!location.symbol.empty()) json["symbol"] = location.symbol;
  if (!location.section.empty()) json["section"] = location.section;
  if (!location.json_pointer.empty()) json["json_pointer"] = location.json_pointer;
  if (location.line) json["line"] = location.line;
  if (location.column) json["column"] = location.column;
  return json;
}

Location location_from_json(const nlohmann::json& json) {
  Location location;
  location.symbol = json.value("symbol", "");
  location.section = json.value("section", "");
  location.json_pointer = json.value("json_pointer", "");
  location.line = json.value("line", 0);
  location.column = json.value("column", 0);
  return location;
}

// Reports of an older kcheck: a benchmark without an eager or a compiled
// baseline shows why there is none, not a zero.
void explain_missing_baselines(const nlohmann::json& item, BenchmarkResult& result) {
  // Before schema 2 the speed-up was over the float64 reference run on
  // native tensors, not over what a user would run: not shown as one.
  if (!item.contains("eager_median_us"))
    result.eager_problem = "a report of an earlier kcheck, which timed no eager Torch baseline";
  if (!item.contains("compiled"))
    result.compiled_problem = "a report of an earlier kcheck, which timed no torch.compile baseline";
}

nlohmann::json dynamic_to_json(const DynamicResults& dynamic) {
  nlohmann::json json = {{"seed", dynamic.seed},           {"devices", dynamic.devices},
                         {"op_checks", dynamic.op_checks}, {"benchmarks", dynamic.benchmarks},
                         {"runs", dynamic.runs},           {"ops", dynamic.ops},
                         {"tests", dynamic.tests}};
  if (!dynamic.containment.empty()) json["containment"] = dynamic.containment;
  return json;
}

DynamicResults dynamic_from_json(const nlohmann::json& json) {
  DynamicResults dynamic;
  dynamic.seed = json.at("seed").get<std::uint64_t>();
  dynamic.containment = json.value("containment", "");
  json.at("devices").get_to(dynamic.devices);
  json.at("op_checks").get_to(dynamic.op_checks);
  for (const nlohmann::json& item : json.at("benchmarks")) {
    // Before 1.4 also flops and achieved_tflops, never measured (always 0): ignored.
    BenchmarkResult result = item.get<BenchmarkResult>();
    explain_missing_baselines(item, result);
    dynamic.benchmarks.push_back(std::move(result));
  }
  // Since 1.5.
  dynamic.runs = json.value("runs", std::vector<VariantRun>{});
  dynamic.ops = json.value("ops", std::vector<OpVerification>{});
  dynamic.tests = json.value("tests", std::vector<TestOutcome>{});
  return dynamic;
}

}  // namespace

nlohmann::json counts_to_json(const SeverityCounts& counts) { return counts; }

Report::Verdict Report::verdict() const {
  if (summary.errors > 0 || (strict && summary.warnings > 0)) return Verdict::fail;
  const bool none_ran = !dynamic.runs.empty() && std::none_of(dynamic.runs.begin(), dynamic.runs.end(),
                                                              [](const VariantRun& run) { return run.ran; });
  if (none_ran) return Verdict::not_run;
  // A run in which the variants registered no op at all verified nothing either.
  if (!dynamic.runs.empty() && dynamic.ops_registered() == 0) return Verdict::unverified;
  if (dynamic.ops_verified() < dynamic.ops_registered()) return Verdict::unverified;
  return Verdict::pass;
}

int Report::gate_status() const {
  switch (verdict()) {
    case Verdict::fail:
      return 1;
    case Verdict::not_run:
      return 2;
    default:
      return 0;
  }
}

const char* verdict_name(Report::Verdict verdict) {
  switch (verdict) {
    case Report::Verdict::fail:
      return "fail";
    case Report::Verdict::not_run:
      return "not-run";
    case Report::Verdict::unverified:
      return "unverified";
    default:
      return "pass";
  }
}

const char* verdict_title(Report::Verdict verdict) {
  switch (verdict) {
    case Report::Verdict::fail:
      return "FAIL";
    case Report::Verdict::not_run:
      return "NOT RUN";
    case Report::Verdict::unverified:
      return "UNVERIFIED";
    default:
      return "PASS";
  }
}

void finalise_report(Report& report) {
  std::stable_sort(report.findings.begin(), report.findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.variant, a.file, a.location.line, a.code, a.message) <
           std::tie(b.variant, b.file, b.location.line, b.code, b.message);
  });
  report.summary = {};
  std::map<std::string, SeverityCounts*> by_variant;
  for (VariantSummary& variant : report.variants) {
    variant.counts = {};
    by_variant[variant.name] = &variant.counts;
  }
  for (const Finding& finding : report.findings) {
    count(report.summary, finding);
    if (auto it = by_variant.find(finding.variant); it != by_variant.end()) count(*it->second, finding);
  }
}

nlohmann::json report_to_json(const Report& report) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& finding : report.findings) {
    nlohmann::json item = {{"code", finding.code},
                           {"severity", std::string(to_string(finding.severity))},
                           {"message", finding.message},
                           {"variant", finding.variant},
                           {"file", finding.file},
                           {"location", location_to_json(finding.location)},
                           {"suppressed", finding.suppressed}};
    if (finding.suppressed) item["suppression_reason"] = finding.suppression_reason;
    findings.push_back(std::move(item));
  }
  nlohmann::json json = {{"schema_version", report.schema_version},
                         {"tool", {{"name", "kcheck"}, {"version", report.tool_version}}},
                         {"policy", {{"name", report.policy_name}, {"source", report.policy_source}}},
                         {"input", report.input},
                         {"audited_root", report.audited_root},
                         {"scope", report.scope},
                         {"strict", report.strict},
                         {"rules_run", report.rules_run},
                         {"variants", report.variants},
                         {"findings", findings},
                         {"summary", report.summary},
                         {"verdict", verdict_name(report.verdict())}};
  if (!report.dynamic.empty()) json["dynamic"] = dynamic_to_json(report.dynamic);
  return json;
}

Report report_from_json(const nlohmann::json& json) {
  try {
    Report report;
    report.schema_version = json.at("schema_version").get<std::string>();
    if (report.schema_version.substr(0, 2) != std::string(kReportSchemaVersion).substr(0, 2))
      throw std::runtime_error("unsupported report schema version " + report.schema_version);
    report.tool_version = json.at("tool").at("version").get<std::string>();
    report.policy_name = json.at("policy").at("name").get<std::string>();
    report.policy_source = json.at("policy").at("source").get<std::string>();
    report.input = json.at("input").get<std::string>();
    report.audited_root = json.at("audited_root").get<std::string>();
    report.scope = json.at("scope").get<std::string>();
    report.strict = json.at("strict").get<bool>();
    report.rules_run = json.at("rules_run").get<std::vector<std::string>>();
    json.at("variants").get_to(report.variants);
    for (const auto& item : json.at("findings")) {
      Finding finding;
      finding.code = item.at("code").get<std::string>();
      auto severity = parse_severity(item.at("severity").get<std::string>());
      if (!severity) throw std::runtime_error("unknown severity in finding " + finding.code);
      finding.severity = *severity;
      finding.message = item.at("message").get<std::string>();
      finding.variant = item.at("variant").get<std::string>();
      finding.file = item.at("file").get<std::string>();
      finding.location = location_from_json(item.at("location"));
      finding.suppressed = item.value("suppressed", false);
      finding.suppression_reason = item.value("suppression_reason", "");
      report.findings.push_back(std::move(finding));
    }
    // The counts are recounted from the findings, never taken from the file:
    // a report (a scan's shard) claiming "0 errors" beside an error finding
    // must not pass (issue #28 item 11).
    (void)json.at("summary").get<SeverityCounts>();  // still required to be well-formed: all four counts
    if (json.contains("dynamic")) report.dynamic = dynamic_from_json(json.at("dynamic"));
    finalise_report(report);
    return report;
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string("not a kcheck JSON report: ") + error.what());
  }
}

}  // namespace kcheck
