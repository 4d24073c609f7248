#pragma once

#include <ATen/core/Tensor.h>

// RMS normalisation over the last dimension (size d):
//   out = input * rsqrt(mean(input^2, -1) + epsilon) * weight
// input and out [..., d], weight [d]; all contiguous, same dtype (float32,
// float16, bfloat16 or float64) and device. Accumulates in float32 (float64
// for float64 input).
void rms_norm(at::Tensor &out, const at::Tensor &input, const at::Tensor &weight, double epsilon);
