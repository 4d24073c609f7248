#pragma once
#include <string>

#include "checker/core/policy.h"
#include "checker/core/rule.h"
#include "checker/elf/native_module_view.h"
#include "checker/elf/symbol_ceilings.h"

namespace kcheck {

// Reports every module's symbol-version ceiling violations (the one
// judgement symbol_ceiling_violations() makes for the builder too) in the
// families `judged_family` selects: KE001 judges glibc's, KE002 the others.
inline void report_symbol_ceiling_violations(const RuleContext& context, FindingSink& sink,
                                             const FamilySelector& judged_family) {
  for_each_elf_module(context.tree, [&](const NativeModuleView& view, const ElfFacts& elf) {
    const std::string arch = ceiling_arch(view, elf);
    for (const SymbolCeilingViolation& violation :
         symbol_ceiling_violations(view, elf, context.policy.native, judged_family)) {
      const std::string where =
          violation.symbol.empty() ? violation.version : violation.symbol + "@" + violation.version;
      sink.report(view.place(where), describe(violation, context.policy, arch));
    }
  });
}

}  // namespace kcheck
