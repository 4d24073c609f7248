// Reference implementations for the ops of the reference kernels (and the
// Hub's kernels with the same names), written with libtorch. Each takes the
// op's own arguments (the boxed stack the op would get, outputs included)
// and writes the outputs: the harness calls it once on float64 copies of the
// inputs (correctness) and once on the native tensors (the speed-up baseline).
// Linked into kcheck_worker only.
#pragma once
#include <string_view>
#include <vector>

#include <ATen/core/ivalue.h>

namespace kcheck::reference {

using ReferenceArgs = std::vector<c10::IValue>;
using ReferenceFunction = void (*)(ReferenceArgs& args);

// nullptr when no reference of that name exists.
ReferenceFunction find_reference(std::string_view name);

std::vector<std::string_view> reference_names();

}  // namespace kcheck::reference
