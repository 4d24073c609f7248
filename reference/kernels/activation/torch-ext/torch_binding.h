#pragma once

#include <ATen/core/Tensor.h>

// Gated activations: input [..., 2d] -> out [..., d], with a = input[..., :d]
// and b = input[..., d:]. All tensors contiguous, same dtype (float32,
// float16, bfloat16 or float64) and device.
void silu_and_mul(at::Tensor &out, const at::Tensor &input);       // silu(a) * b
void mul_and_silu(at::Tensor &out, const at::Tensor &input);       // a * silu(b)
void gelu_and_mul(at::Tensor &out, const at::Tensor &input);       // gelu_erf(a) * b
void gelu_tanh_and_mul(at::Tensor &out, const at::Tensor &input);  // gelu_tanh(a) * b
void fatrelu_and_mul(at::Tensor &out, const at::Tensor &input,
                     double threshold);  // (a > threshold ? a : 0) * b

// Elementwise activations: out has the shape of input.
void gelu_new(at::Tensor &out, const at::Tensor &input);    // tanh approximation
void gelu_fast(at::Tensor &out, const at::Tensor &input);   // tanh approximation, vLLM form
void gelu_quick(at::Tensor &out, const at::Tensor &input);  // x * sigmoid(1.702 x)
void gelu_tanh(at::Tensor &out, const at::Tensor &input);   // tanh approximation
void silu(at::Tensor &out, const at::Tensor &input);        // x * sigmoid(x)
void gelu(at::Tensor &out, const at::Tensor &input);        // exact (erf)
