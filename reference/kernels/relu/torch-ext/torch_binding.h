#pragma once

#include <ATen/core/Tensor.h>

// out = max(input, 0), elementwise. `out` and `input` are contiguous tensors
// of the same shape, dtype (float32, float16, bfloat16 or float64) and device.
void relu(at::Tensor &out, const at::Tensor &input);
