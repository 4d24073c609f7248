#include "checker/report/sarif_format.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "checker/report/explain_format.h"

namespace kcheck {

namespace {

constexpr const char* kSarifSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr const char* kRootBaseId = "AUDITED_ROOT";
constexpr const char* kSourceRootBaseId = "SRCROOT";

// Where result URIs are relative to: the audited root, or the repository
// root a code-scanning service resolves them against.
struct UriBase {
  std::string id;
  std::string root;    // absolute, as a file:// URI names it
  std::string prefix;  // from that root to the audited root: "kernels/relu/build/" or ""
};

UriBase uri_base(const Report& report, const std::optional<std::filesystem::path>& source_root) {
  if (!source_root) return {kRootBaseId, report.audited_root, ""};
  const std::filesystem::path relative =
      std::filesystem::path(report.audited_root).lexically_normal().lexically_relative(source_root->lexically_normal());
  std::string prefix = relative.generic_string();
  if (prefix == ".") prefix.clear();
  if (!prefix.empty() && !prefix.ends_with("/")) prefix += "/";
  return {kSourceRootBaseId, source_root->string(), prefix};
}

// FNV-1a (64 bits), hex: a fingerprint, not a security hash.
std::string fingerprint(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) hash = (hash ^ c) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

// What identifies a finding across runs (GitHub matches alerts by it): rule,
// variant, file, symbol or JSON pointer and message, but not the line, which
// moves with unrelated edits.
std::string finding_fingerprint(const Finding& finding) {
  return fingerprint(finding.code + '\0' + finding.variant + '\0' + finding.file + '\0' + finding.location.symbol +
                     '\0' + finding.location.json_pointer + '\0' + finding.message);
}

std::string sarif_level(Severity severity) { return std::string(to_string(severity)); }

// Percent-encodes everything but unreserved characters and '/', so a file
// name with spaces or '#' stays one relative URI reference.
std::string uri_encode(const std::string& path) {
  std::string uri;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      uri += static_cast<char>(c);
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", c);
      uri += escaped;
    }
  }
  return uri;
}

std::string root_uri(const std::string& audited_root) {
  std::string uri = "file://" + uri_encode(audited_root);
  if (!uri.ends_with("/")) uri += "/";
  return uri;
}

// Every code that ran or produced a finding, ordered; ruleIndex points here.
std::vector<std::string> reported_codes(const Report& report) {
  std::set<std::string> codes(report.rules_run.begin(), report.rules_run.end());
  for (const Finding& finding : report.findings) codes.insert(finding.code);
  return {codes.begin(), codes.end()};
}

nlohmann::json rule_descriptor(const std::string& code, const std::map<std::string, const RuleInfo*>& catalogue,
                               const std::string& rules_url) {
  nlohmann::json descriptor = {{"id", code}};
  if (!rules_url.empty()) descriptor["helpUri"] = rules_url + "#" + rule_anchor(code);
  auto found = catalogue.find(code);
  if (found == catalogue.end()) return descriptor;  // a saved report from another kcheck version
  const RuleInfo& info = *found->second;
  descriptor["shortDescription"] = {{"text", info.title}};
  descriptor["fullDescription"] = {{"text", info.title}};
  descriptor["help"] = {{"text", explanation_with_examples(info)}, {"markdown", explanation_markdown(info)}};
  descriptor["defaultConfiguration"] = {{"level", sarif_level(info.default_severity)}};
  if (info.security_severity > 0) {
    char score[8];
    std::snprintf(score, sizeof score, "%.1f", info.security_severity);
    descriptor["properties"] = {{"tags", {"security"}}, {"security-severity", score}};
  }
  return descriptor;
}

nlohmann::json finding_location(const Finding& finding, const UriBase& base) {
  nlohmann::json location = nlohmann::json::object();
  if (!finding.file.empty()) {
    nlohmann::json physical = {
        {"artifactLocation", {{"uri", uri_encode(base.prefix + finding.file)}, {"uriBaseId", base.id}}}};
    if (finding.location.line) {
      physical["region"] = {{"startLine", finding.location.line}};
      if (finding.location.column) physical["region"]["startColumn"] = finding.location.column;
    }
    location["physicalLocation"] = std::move(physical);
  }
  nlohmann::json logical = nlohmann::json::array();
  if (!finding.location.symbol.empty())
    logical.push_back({{"name", finding.location.symbol}, {"fullyQualifiedName", finding.location.symbol}});
  if (!finding.location.json_pointer.empty())
    logical.push_back({{"fullyQualifiedName", finding.location.json_pointer}, {"kind", "property"}});
  if (!logical.empty()) location["logicalLocations"] = std::move(logical);
  return location;
}

nlohmann::json result(const Finding& finding, int rule_index, const UriBase& base) {
  nlohmann::json item = {{"ruleId", finding.code},
                         {"ruleIndex", rule_index},
                         {"level", sarif_level(finding.severity)},
                         {"message", {{"text", finding.message}}},
                         {"partialFingerprints", {{"kcheckFinding/v1", finding_fingerprint(finding)}}}};
  nlohmann::json location = finding_location(finding, base);
  if (!location.empty()) item["locations"] = nlohmann::json::array({location});
  nlohmann::json properties = nlohmann::json::object();
  if (!finding.variant.empty()) properties["variant"] = finding.variant;
  if (!finding.location.section.empty()) properties["section"] = finding.location.section;
  if (!properties.empty()) item["properties"] = std::move(properties);
  if (finding.suppressed)
    item["suppressions"] =
        nlohmann::json::array({{{"kind", "external"}, {"justification", finding.suppression_reason}}});
  return item;
}

}  // namespace

nlohmann::json render_sarif(const Report& report, const std::vector<RuleInfo>& rules,
                            const std::optional<std::filesystem::path>& source_root, const std::string& rules_url) {
  const UriBase base = uri_base(report, source_root);
  std::map<std::string, const RuleInfo*> catalogue;
  for (const RuleInfo& info : rules) catalogue[info.code] = &info;
  std::vector<std::string> codes = reported_codes(report);
  std::map<std::string, int> rule_index;
  nlohmann::json descriptors = nlohmann::json::array();
  for (const std::string& code : codes) {
    rule_index[code] = static_cast<int>(descriptors.size());
    descriptors.push_back(rule_descriptor(code, catalogue, rules_url));
  }
  nlohmann::json results = nlohmann::json::array();
  for (const Finding& finding : report.findings) results.push_back(result(finding, rule_index.at(finding.code), base));

  nlohmann::json driver = {{"name", "kcheck"},
                           {"version", report.tool_version},
                           {"semanticVersion", report.tool_version},
                           {"rules", descriptors}};
  if (!rules_url.empty()) driver["informationUri"] = rules_url;
  nlohmann::json run = {
      {"tool", {{"driver", driver}}},
      {"originalUriBaseIds", {{base.id, {{"uri", root_uri(base.root)}}}}},
      {"invocations", nlohmann::json::array({{{"executionSuccessful", true}, {"exitCode", report.gate_status()}}})},
      {"results", results},
      {"properties",
       {{"policy", report.policy_name},
        {"scope", report.scope},
        {"strict", report.strict},
        {"verdict", verdict_name(report.verdict())}}}};
  return {{"$schema", kSarifSchema}, {"version", "2.1.0"}, {"runs", nlohmann::json::array({run})}};
}

}  // namespace kcheck
