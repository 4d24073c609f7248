// The baselines `kcheck bench` times a kernel against, as Python expressions:
// what a user would write instead of the kernel (the fused Torch op where one
// exists, else the plain composite). Torch-free, so kcheck (which never links
// Torch) and kcheck_worker share one table:
// - kcheck_worker runs each one eagerly through the libtorch function of the
//   same name (reference_ops.cpp), which computes exactly this expression;
// - the torch.compile helper (checker/harness/compile_baselines.py) compiles
//   the expression itself.
// Names an expression may use: `torch`, `F` (torch.nn.functional), every
// argument of the op by its spec name (tensors and float scalars), `x` (the
// first input tensor) and the size variables of the spec's sizes (`n`, `d`).
#pragma once
#include <span>
#include <string_view>

namespace kcheck::reference {

struct BaselineForm {
  std::string_view name;        // what an op spec's `baseline = "..."` names
  std::string_view expression;  // "F.rms_norm(input, (d,), weight, epsilon)"
};

// nullptr when no baseline of that name exists.
const BaselineForm* find_baseline_form(std::string_view name);

std::span<const BaselineForm> baseline_forms();

}  // namespace kcheck::reference
