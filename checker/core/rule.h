#pragma once
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/core/finding.h"
#include "checker/core/severity.h"

namespace kcheck {

struct TreeFacts;
struct Policy;

// The facts a rule judges, each including the ones before: what a source
// repository holds before any build (build.toml, the Python package, the
// C++ sources' registrations), the built variants' files, or what `kcheck
// run` or `kcheck bench` found by running the kernel's code. A rule whose
// facts were not collected does not run: it is not in the report's
// rules_run, and JUnit lists its family as skipped.
enum class RuleNeeds { source, build, kernel_run, kernel_bench };

// Facts collected only when a selected rule reads them: each costs reading
// (or hashing) that an audit whose rules do not judge it skips. A rule says
// which it reads in its RuleInfo; collect_facts reads the union over the
// selected rules (RuleRegistry::optional_facts), so a new rule needing one
// declares it where it is written, and nowhere else.
enum class OptionalFact : unsigned {
  op_namespaces = 1u << 0,   // op registrations in the ELF symbol tables (.dynsym, .symtab)
  build_leaks = 1u << 1,     // .comment and the debug sections
  read_only_data = 1u << 2,  // the strings of .rodata
  device_code = 1u << 3,     // the fat binaries (.nv_fatbin, .hip_fatbin)
  digest = 1u << 4,          // every file a metadata.json digest covers, hashed
  needed_closure = 1u << 5,  // the imports resolved against the libraries at hand
};

class OptionalFacts {
 public:
  constexpr OptionalFacts() = default;
  constexpr OptionalFacts(OptionalFact fact) : bits_(static_cast<unsigned>(fact)) {}  // NOLINT: a set of one
  constexpr bool has(OptionalFact fact) const { return (bits_ & static_cast<unsigned>(fact)) != 0; }
  constexpr OptionalFacts operator|(OptionalFacts other) const { return from_bits(bits_ | other.bits_); }
  constexpr OptionalFacts& operator|=(OptionalFacts other) { return *this = *this | other; }
  constexpr bool operator==(const OptionalFacts&) const = default;

 private:
  static constexpr OptionalFacts from_bits(unsigned bits) {
    OptionalFacts facts;
    facts.bits_ = bits;
    return facts;
  }
  unsigned bits_ = 0;
};
constexpr OptionalFacts operator|(OptionalFact a, OptionalFact b) { return OptionalFacts(a) | b; }

// What a user reads about a rule: `kcheck rules`, `kcheck explain CODE`, SARIF.
struct RuleInfo {
  std::string code;   // stable, e.g. "KE001"
  std::string title;  // one line
  Severity default_severity = Severity::error;
  std::string explanation;        // what it flags, why, and how to fix it
  std::string example_violation;  // a short concrete case the rule flags (`kcheck explain`, HTML, SARIF)
  std::string example_fix;        // the same case, fixed
  // How much a finding of this rule weighs for security, on the 0-10 scale
  // code-scanning tools use (GitHub: 7-8.9 high, 9+ critical); 0: not a
  // security rule. What an attacker gains through it, not how sloppy it is.
  double security_severity = 0;
  RuleNeeds needs = RuleNeeds::build;
  OptionalFacts reads;  // the optional facts it judges (none: only those every audit collects)
  // A rule about the repository's own kcheck configuration (KC006, KC007):
  // a repository's `ignore` can never switch it off, so an upload cannot
  // hide that its configuration is broken or not applied.
  bool guards_the_configuration = false;
};

// What the rules judge by besides the facts and the policy: the few things
// the caller says about the audit (AuditOptions::rule_options()).
struct RuleOptions {
  std::string repo_id;  // --repo-id owner/name (KM005)
  // --local-build: what this machine built, not an upload (KL006).
  bool local_build = false;
  // The command that downloads the whole repository, for a snapshot of the
  // Hugging Face cache (KL006); "" for any other input.
  std::string whole_download_command;
  // The repository's kcheck.toml is applied: false under --security and
  // --no-repo-config (KC007 reports what it would have done).
  bool repository_config_applied = true;
  bool policy_from_command_line = false;  // --policy: the repository's `policy` is not applied (KC007)
};

// The inputs every rule judges: facts computed once, the policy, options.
class RuleRegistry;
struct RuleContext {
  const TreeFacts& tree;
  const Policy& policy;
  RuleOptions options;
  const RuleRegistry* registry = nullptr;  // every rule of this kcheck (for rules about codes); may be absent
};

// Collects the findings of one rule, stamping its code and default severity.
// At most kMaxFindingsPerFile of one rule are kept per file (and per variant):
// past that they are counted, and one more finding says how many were left
// out (issue #28: a file of 1.1 M `import` lines made 1.1 M findings and
// 4 GB of report). That finding is added when the sink goes out of scope.
class FindingSink {
 public:
  static constexpr std::size_t kMaxFindingsPerFile = 1000;

  FindingSink(const RuleInfo& rule, Findings& out) : FindingSink(rule, out, rule.default_severity) {}
  // `severity`: what the policy makes of the rule's findings where the rule
  // gives none of its own (Policy::severity_for; --security's overlay).
  FindingSink(const RuleInfo& rule, Findings& out, Severity severity) : rule_(rule), severity_(severity), out_(out) {}
  FindingSink(const FindingSink&) = delete;
  FindingSink& operator=(const FindingSink&) = delete;
  ~FindingSink() { add_left_out(); }

  void report(const Place& where, std::string message) { report(severity_, where, std::move(message)); }
  void report(Severity severity, const Place& where, std::string message) {
    PerFile& counted = per_file_[{where.variant, where.file}];
    if (++counted.reported > kMaxFindingsPerFile) {
      counted.worst_left_out = std::max(counted.worst_left_out, severity);
      return;
    }
    Finding finding;
    finding.code = rule_.code;
    finding.severity = severity;
    finding.message = std::move(message);
    finding.variant = where.variant;
    finding.file = where.file;
    finding.location = where.location;
    out_.push_back(std::move(finding));
  }

 private:
  struct PerFile {
    std::size_t reported = 0;
    Severity worst_left_out = Severity::note;
  };

  void add_left_out() {
    for (const auto& [where, counted] : per_file_) {
      if (counted.reported <= kMaxFindingsPerFile) continue;
      Finding finding;
      finding.code = rule_.code;
      finding.severity = counted.worst_left_out;
      finding.message = std::to_string(counted.reported - kMaxFindingsPerFile) + " more " + rule_.code +
                        " findings in " + (where.second.empty() ? std::string("this variant") : where.second) +
                        " are not listed (kcheck lists the first " + std::to_string(kMaxFindingsPerFile) +
                        " of a rule per file)";
      finding.variant = where.first;
      finding.file = where.second;
      out_.push_back(std::move(finding));
    }
    per_file_.clear();
  }

  const RuleInfo& rule_;
  Severity severity_;
  Findings& out_;
  std::map<std::pair<std::string, std::string>, PerFile> per_file_;  // (variant, file)
};

// What the audit knows once every selected rule ran and the tree's
// suppressions were applied.
struct Judgement {
  const std::vector<std::string>& rules_run;     // the codes of the rules that ran
  const std::vector<bool>& suppression_matched;  // per entry of the tree's suppressions: hid a finding
};

// One rule = one class: its info and a judgement of the facts against the
// policy. Rules never read files, print or exit; they only report findings.
class Rule {
 public:
  virtual ~Rule() = default;
  virtual const RuleInfo& info() const = 0;
  virtual void check(const RuleContext& context, FindingSink& sink) const = 0;
  // Called once more, after every selected rule ran and the suppressions were
  // applied, for a rule that judges the judgement itself (KC007: a
  // suppression that matched no finding). Most rules have nothing to add.
  virtual void after_judgement(const RuleContext& /*context*/, const Judgement& /*judged*/,
                               FindingSink& /*sink*/) const {}
};

}  // namespace kcheck
