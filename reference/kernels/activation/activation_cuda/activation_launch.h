#pragma once

// The entry points of the activation device code: no Torch and no GPU
// runtime headers, so the Torch glue (activation_torch.cpp, a plain C++
// source) can call them whether the device code was compiled by nvcc or by
// hipcc. `stream` is a cudaStream_t or hipStream_t (nullptr: the default
// stream); each returns nullptr, or the runtime's text for a launch error.
#include <cstdint>

namespace activation_gpu {

enum class ScalarKind { kFloat, kDouble, kHalf, kBFloat16 };

// out[i] = act(in[i]) for i < n.
enum class ElementwiseOp { kSilu, kGeluErf, kGeluTanh, kGeluFast, kGeluQuick };
const char *launch_elementwise(ElementwiseOp op, ScalarKind kind, void *out, const void *in, int64_t n, void *stream);

// out[r, j] = gate(in[r, j], in[r, d + j]) for r < rows, j < d; `threshold`
// is used by kFatReluAndMul only.
enum class GatedOp { kSiluAndMul, kMulAndSilu, kGeluAndMul, kGeluTanhAndMul, kFatReluAndMul };
const char *launch_gated(GatedOp op, ScalarKind kind, void *out, const void *in, int64_t rows, int64_t d,
                         double threshold, void *stream);

}  // namespace activation_gpu
