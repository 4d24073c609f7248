#pragma once
// Shared by the libFuzzer targets: hand the input to a reader that takes a
// path (as kcheck reads untrusted uploads), and run a family of rules over
// the facts with an embedded policy, as an audit would.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "checker/audit/audit_options.h"
#include "checker/audit/security_profile.h"
#include "checker/core/policy.h"
#include "checker/core/rule_registry.h"
#include "checker/facts/tree_facts.h"

namespace kcheck::fuzz {

// The input as an anonymous in-memory file reachable by path (no disk I/O).
class MemoryFile {
 public:
  MemoryFile(const std::uint8_t* data, std::size_t size) : descriptor_(::memfd_create("kcheck-fuzz", MFD_CLOEXEC)) {
    if (descriptor_ < 0) __builtin_trap();
    for (std::size_t written = 0; written < size;) {
      const ssize_t n = ::write(descriptor_, data + written, size - written);
      if (n <= 0) __builtin_trap();
      written += static_cast<std::size_t>(n);
    }
  }
  ~MemoryFile() { ::close(descriptor_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  std::filesystem::path path() const { return "/proc/self/fd/" + std::to_string(descriptor_); }

 private:
  int descriptor_;
};

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs every rule of `rules` over `tree` under `policy`; the findings are
// dropped: the target looks for crashes, leaks and undefined behaviour.
inline std::size_t run_rules(const RuleRegistry& rules, const TreeFacts& tree, const Policy& policy, bool security,
                             const std::string& repo_id = "") {
  AuditOptions options;
  Policy judged = policy;
  if (security) apply_security_profile(options, judged);  // the Hub-side profile: --security
  options.repo_id = repo_id;                              // --repo-id: KM005 compares metadata.json's name with it
  const RuleContext context{tree, judged, options.rule_options()};
  Findings findings;
  for (const Rule* rule : rules.rules()) {
    FindingSink sink(rule->info(), findings, judged.severity_for(rule->info().code, rule->info().default_severity));
    rule->check(context, sink);
  }
  return findings.size();
}

}  // namespace kcheck::fuzz
