#include "checker/audit/audit.h"
#include "checker/config/config_rules.h"
#include "checker/layout/layout_rules.h"
#include "checker/metadata/metadata_rules.h"
// Analysers still in development register their rules once their header lands.
#if __has_include("checker/elf/elf_rules.h")
#include "checker/elf/elf_rules.h"
#define KCHECK_WITH_ELF_RULES 1
#endif
#if __has_include("checker/python/python_rules.h")
#include "checker/python/python_rules.h"
#define KCHECK_WITH_PYTHON_RULES 1
#endif
#if __has_include("checker/namespace/namespace_rules.h")
#include "checker/namespace/namespace_rules.h"
#define KCHECK_WITH_NAMESPACE_RULES 1
#endif

namespace kcheck {

RuleRegistry make_rule_registry() {
  RuleRegistry registry;
  add_layout_rules(registry);
  add_metadata_rules(registry);
  add_config_rules(registry);
#ifdef KCHECK_WITH_ELF_RULES
  add_elf_rules(registry);
#endif
#ifdef KCHECK_WITH_PYTHON_RULES
  add_python_rules(registry);
#endif
#ifdef KCHECK_WITH_NAMESPACE_RULES
  add_namespace_rules(registry);
#endif
  return registry;
}

}  // namespace kcheck
