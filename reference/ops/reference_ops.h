// Reference implementations for the ops of the reference kernels (and the
// Hub's kernels with the same names), written with libtorch. Each takes the
// op's own arguments (the boxed stack the op would get, outputs included)
// and writes the outputs: the harness calls it on float64 copies of the
// inputs (correctness). Beside them, the baselines `kcheck bench` times a
// kernel against. Linked into kcheck_worker only.
#pragma once
#include <optional>
#include <string_view>
#include <vector>

#include <ATen/core/ivalue.h>

namespace kcheck::reference {

using ReferenceArgs = std::vector<c10::IValue>;
using ReferenceFunction = void (*)(ReferenceArgs& args);

// nullptr when no reference of that name exists.
ReferenceFunction find_reference(std::string_view name);

std::vector<std::string_view> reference_names();

// What a user would run instead of the kernel: the best eager Torch form of
// the op (the fused Torch op where one exists, else the plain composite),
// computing a new tensor from the op's inputs as the user's code would, timed
// on the native tensors beside the kernel. `expression` is its form in
// baseline_forms.cpp, how the report names it and what torch.compile compiles.
using BaselineFunction = at::Tensor (*)(const ReferenceArgs& args);
struct Baseline {
  std::string_view name;
  std::string_view expression;
  BaselineFunction run;
};

// nullopt when baseline_forms.cpp or this file has no baseline of that name.
std::optional<Baseline> find_baseline(std::string_view name);

}  // namespace kcheck::reference
