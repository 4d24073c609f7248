// How each op a variant registered was verified by `kcheck run`: checked
// against a reference, called by the kernel's own tests, smoke-called, or not
// called, and why an op is not verified. KD007 judges it; the report lists it
// (DynamicResults::ops) and counts "N ops registered, M verified".
#pragma once
#include <vector>

#include "checker/core/report.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {

// Every op the variant registered (its new dispatcher ops), in the order the
// worker found them; empty when the variant did not load.
std::vector<OpVerification> op_verifications(const VariantFacts& variant);

// The variant as run: ran or not, why not, and its op counts.
VariantRun variant_run(const VariantFacts& variant);

}  // namespace kcheck
