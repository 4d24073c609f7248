#pragma once
#include <string>

#include "checker/core/rule.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {

// Where a harness finding points: the variant's native module.
inline Place harness_place(const VariantFacts& variant) {
  return {.variant = variant.directory_name, .file = variant.report_path(variant.harness->module_relative_path)};
}

// A finding about one op of the variant's module: the op as the symbol.
inline Place op_place(const VariantFacts& variant, const std::string& op) {
  Place place = harness_place(variant);
  place.location.symbol = op;
  return place;
}

// "4.2e-03" style numbers for messages.
std::string short_number(double value);

// The variant was run and the worker's end is to be judged.
inline bool was_run(const VariantFacts& variant) {
  return variant.harness && variant.harness->skipped_because.empty() && variant.harness->harness_problem.empty() &&
         variant.harness->worker.started;
}

// The last lines of what the worker wrote, for a finding's message.
std::string output_excerpt(const WorkerEnd& end);

}  // namespace kcheck
