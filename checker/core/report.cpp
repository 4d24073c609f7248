#include "checker/core/report.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

namespace kcheck {

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

SeverityCounts counts_from_json(const nlohmann::json& json) {
  return {json.at("errors").get<int>(), json.at("warnings").get<int>(), json.at("notes").get<int>(),
          json.at("suppressed").get<int>()};
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

nlohmann::json compiled_to_json(const std::vector<CompiledBaseline>& compiled) {
  nlohmann::json list = nlohmann::json::array();
  for (const CompiledBaseline& mode : compiled)
    list.push_back({{"mode", mode.mode},
                    {"median_us", mode.median_us},
                    {"spread_us", mode.spread_us},
                    {"compile_seconds", mode.compile_seconds},
                    {"problem", mode.problem}});
  return list;
}

nlohmann::json runs_to_json(const std::vector<VariantRun>& runs) {
  nlohmann::json list = nlohmann::json::array();
  for (const VariantRun& run : runs)
    list.push_back({{"variant", run.variant},
                    {"ran", run.ran},
                    {"reason", run.reason},
                    {"ops_registered", run.ops_registered},
                    {"ops_verified", run.ops_verified},
                    {"python", run.python},
                    {"torch", run.torch},
                    {"worker", run.worker}});
  return list;
}

nlohmann::json ops_to_json(const std::vector<OpVerification>& ops) {
  nlohmann::json list = nlohmann::json::array();
  for (const OpVerification& op : ops)
    list.push_back({{"variant", op.variant},
                    {"op", op.op},
                    {"schema", op.schema},
                    {"dispatch_keys", op.dispatch_keys},
                    {"how", op.how},
                    {"verified", op.verified},
                    {"reference", op.reference},
                    {"cases_run", op.cases_run},
                    {"cases_passed", op.cases_passed},
                    {"unsupported_dtypes", op.unsupported_dtypes},
                    {"why", op.why},
                    {"reported_as", op.reported_as}});
  return list;
}

nlohmann::json tests_to_json(const std::vector<TestOutcome>& tests) {
  nlohmann::json list = nlohmann::json::array();
  for (const TestOutcome& test : tests)
    list.push_back({{"variant", test.variant},
                    {"test", test.test},
                    {"outcome", test.outcome},
                    {"message", test.message},
                    {"seconds", test.seconds}});
  return list;
}

void runs_ops_and_tests_from_json(const nlohmann::json& json, DynamicResults& dynamic) {
  for (const auto& item : json.value("runs", nlohmann::json::array()))
    dynamic.runs.push_back({item.at("variant").get<std::string>(), item.at("ran").get<bool>(),
                            item.at("reason").get<std::string>(), item.at("ops_registered").get<int>(),
                            item.at("ops_verified").get<int>(), item.value("python", ""), item.value("torch", ""),
                            item.value("worker", "")});
  for (const auto& item : json.value("ops", nlohmann::json::array()))
    dynamic.ops.push_back(
        {item.at("variant").get<std::string>(), item.at("op").get<std::string>(), item.at("schema").get<std::string>(),
         item.at("dispatch_keys").get<std::vector<std::string>>(), item.at("how").get<std::string>(),
         item.at("verified").get<bool>(), item.at("reference").get<std::string>(), item.at("cases_run").get<int>(),
         item.at("cases_passed").get<int>(), item.at("unsupported_dtypes").get<std::vector<std::string>>(),
         item.at("why").get<std::string>(), item.value("reported_as", "")});
  for (const auto& item : json.value("tests", nlohmann::json::array()))
    dynamic.tests.push_back({item.at("variant").get<std::string>(), item.at("test").get<std::string>(),
                             item.at("outcome").get<std::string>(), item.at("message").get<std::string>(),
                             item.at("seconds").get<double>()});
}

nlohmann::json dynamic_to_json(const DynamicResults& dynamic) {
  nlohmann::json devices = nlohmann::json::array();
  for (const DeviceLimits& device : dynamic.devices)
    devices.push_back({{"variant", device.variant},
                       {"name", device.name},
                       {"backend", device.backend},
                       {"copy_bandwidth_gbs", device.copy_bandwidth_gbs},
                       {"matmul_tflops", device.matmul_tflops},
                       {"matmul_dtype", device.matmul_dtype}});
  nlohmann::json checks = nlohmann::json::array();
  for (const OpCheck& check : dynamic.op_checks)
    checks.push_back({{"variant", check.variant},
                      {"op", check.op},
                      {"dtype", check.dtype},
                      {"shape", check.shape},
                      {"max_abs_error", check.max_abs_error},
                      {"relative_error", check.relative_error},
                      {"passed", check.passed}});
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const BenchmarkResult& result : dynamic.benchmarks)
    benchmarks.push_back({{"variant", result.variant},
                          {"op", result.op},
                          {"dtype", result.dtype},
                          {"shape", result.shape},
                          {"repetitions", result.repetitions},
                          {"median_us", result.median_us},
                          {"spread_us", result.spread_us},
                          {"bytes", result.bytes},
                          {"achieved_gbs", result.achieved_gbs},
                          {"percent_of_peak", result.percent_of_peak},
                          {"eager", result.eager},
                          {"eager_problem", result.eager_problem},
                          {"eager_median_us", result.eager_median_us},
                          {"eager_spread_us", result.eager_spread_us},
                          {"speedup", result.speedup},
                          {"compiled", compiled_to_json(result.compiled)},
                          {"compiled_problem", result.compiled_problem},
                          {"compile_speedup", result.compile_speedup},
                          {"eager_python_median_us", result.eager_python_median_us}});
  nlohmann::json json = {
      {"seed", dynamic.seed}, {"devices", devices}, {"op_checks", checks}, {"benchmarks", benchmarks}};
  if (!dynamic.containment.empty()) json["containment"] = dynamic.containment;
  json["runs"] = runs_to_json(dynamic.runs);
  json["ops"] = ops_to_json(dynamic.ops);
  json["tests"] = tests_to_json(dynamic.tests);
  return json;
}

DynamicResults dynamic_from_json(const nlohmann::json& json) {
  DynamicResults dynamic;
  dynamic.seed = json.at("seed").get<std::uint64_t>();
  dynamic.containment = json.value("containment", "");
  for (const auto& item : json.at("devices"))
    dynamic.devices.push_back({item.at("variant").get<std::string>(), item.at("name").get<std::string>(),
                               item.at("backend").get<std::string>(), item.at("copy_bandwidth_gbs").get<double>(),
                               item.at("matmul_tflops").get<double>(), item.value("matmul_dtype", "")});
  for (const auto& item : json.at("op_checks"))
    dynamic.op_checks.push_back({item.at("variant").get<std::string>(), item.at("op").get<std::string>(),
                                 item.at("dtype").get<std::string>(), item.at("shape").get<std::string>(),
                                 item.at("max_abs_error").get<double>(), item.at("relative_error").get<double>(),
                                 item.at("passed").get<bool>()});
  for (const auto& item : json.at("benchmarks")) {
    BenchmarkResult result;
    result.variant = item.at("variant").get<std::string>();
    result.op = item.at("op").get<std::string>();
    result.dtype = item.at("dtype").get<std::string>();
    result.shape = item.at("shape").get<std::string>();
    result.repetitions = item.at("repetitions").get<int>();
    result.median_us = item.at("median_us").get<double>();
    result.spread_us = item.at("spread_us").get<double>();
    result.bytes = item.at("bytes").get<double>();
    result.achieved_gbs = item.at("achieved_gbs").get<double>();
    result.percent_of_peak = item.at("percent_of_peak").get<double>();
    // Before 1.4 also flops and achieved_tflops, never measured (always 0): ignored.
    if (item.contains("eager_median_us")) {
      result.eager = item.value("eager", "");
      result.eager_problem = item.value("eager_problem", "");
      result.eager_median_us = item.at("eager_median_us").get<double>();
      result.eager_spread_us = item.value("eager_spread_us", 0.0);
      result.speedup = item.at("speedup").get<double>();
    } else {
      // Before schema 2 the speed-up was over the float64 reference run on
      // native tensors, not over what a user would run: not shown as one.
      result.eager_problem = "a report of an earlier kcheck, which timed no eager Torch baseline";
    }
    if (item.contains("compiled")) {
      for (const auto& entry : item.at("compiled"))
        result.compiled.push_back({entry.at("mode").get<std::string>(), entry.at("median_us").get<double>(),
                                   entry.at("spread_us").get<double>(), entry.at("compile_seconds").get<double>(),
                                   entry.value("problem", "")});
      result.compiled_problem = item.value("compiled_problem", "");
      result.compile_speedup = item.value("compile_speedup", 0.0);
      result.eager_python_median_us = item.value("eager_python_median_us", 0.0);
    } else {
      result.compiled_problem = "a report of an earlier kcheck, which timed no torch.compile baseline";
    }
    dynamic.benchmarks.push_back(std::move(result));
  }
  runs_ops_and_tests_from_json(json, dynamic);  // since 1.5
  return dynamic;
}

}  // namespace

nlohmann::json counts_to_json(const SeverityCounts& counts) {
  return {{"errors", counts.errors},
          {"warnings", counts.warnings},
          {"notes", counts.notes},
          {"suppressed", counts.suppressed}};
}

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
  nlohmann::json variants = nlohmann::json::array();
  for (const VariantSummary& variant : report.variants)
    variants.push_back({{"name", variant.name},
                        {"path", variant.path},
                        {"backend", variant.backend},
                        {"counts", counts_to_json(variant.counts)}});
  nlohmann::json json = {{"schema_version", report.schema_version},
                         {"tool", {{"name", "kcheck"}, {"version", report.tool_version}}},
                         {"policy", {{"name", report.policy_name}, {"source", report.policy_source}}},
                         {"input", report.input},
                         {"audited_root", report.audited_root},
                         {"scope", report.scope},
                         {"strict", report.strict},
                         {"rules_run", report.rules_run},
                         {"variants", variants},
                         {"findings", findings},
                         {"summary", counts_to_json(report.summary)},
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
    for (const auto& item : json.at("variants"))
      report.variants.push_back({item.at("name").get<std::string>(), item.at("path").get<std::string>(),
                                 item.at("backend").get<std::string>(), counts_from_json(item.at("counts"))});
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
    (void)counts_from_json(json.at("summary"));  // still required to be well-formed
    if (json.contains("dynamic")) report.dynamic = dynamic_from_json(json.at("dynamic"));
    finalise_report(report);
    return report;
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string("not a kcheck JSON report: ") + error.what());
  }
}

int DynamicResults::ops_verified() const {
  return static_cast<int>(std::count_if(ops.begin(), ops.end(), [](const OpVerification& op) { return op.verified; }));
}

const CompiledBaseline* fastest_timed(const std::vector<CompiledBaseline>& compiled) {
  const CompiledBaseline* fastest = nullptr;
  for (const CompiledBaseline& mode : compiled)
    if (mode.timed() && (!fastest || mode.median_us < fastest->median_us)) fastest = &mode;
  return fastest;
}

bool BenchmarkResult::python_call_bound() const {
  if (!(eager_median_us > 0)) return false;
  if (eager_python_median_us > 1.2 * eager_median_us) return true;
  const CompiledBaseline* fastest = fastest_timed(compiled);
  return fastest && fastest->median_us > 1.2 * std::max(eager_median_us, eager_python_median_us);
}

}  // namespace kcheck
