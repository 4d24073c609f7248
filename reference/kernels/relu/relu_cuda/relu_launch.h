#pragma once

// The entry point of the ReLU device code: no Torch and no GPU runtime
// headers, so the Torch glue (relu_torch.cpp, a plain C++ source) can call it
// whether the device code was compiled by nvcc or by hipcc.
#include <cstdint>

namespace relu_gpu {

enum class ScalarKind { kFloat, kDouble, kHalf, kBFloat16 };

// out[i] = max(in[i], 0) for i < n, on `stream` (a cudaStream_t or
// hipStream_t; nullptr is the default stream). Returns nullptr, or the
// runtime's text for a launch error.
const char *launch_relu(ScalarKind kind, void *out, const void *in, int64_t n, void *stream);

}  // namespace relu_gpu
