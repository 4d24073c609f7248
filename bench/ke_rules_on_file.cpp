// Whole-process measurement subject for bench/compare_elf.sh: reads one
// native module's facts and runs every KE rule, then prints the counts.
// Usage: ke_rules_on_file FILE [POLICY]
#include <cstdio>

#include "bench/native_module_audit.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE [POLICY]\n", argv[0]);
    return 2;
  }
  const kcheck::Policy policy = kcheck::load_policy(argc > 2 ? argv[2] : "hub");
  const kcheck::RuleRegistry rules = kcheck::bench::native_module_rules();
  const kcheck::Findings findings = kcheck::bench::audit_native_module(argv[1], policy, rules);
  int counts[3] = {};
  for (const kcheck::Finding& finding : findings) ++counts[static_cast<int>(finding.severity)];
  std::printf("%s: %d errors, %d warnings, %d notes\n", argv[1], counts[2], counts[1], counts[0]);
  return 0;
}
