#pragma once

// The entry point of the RMS-norm device code: no Torch and no GPU runtime
// headers, so the Torch glue (rms_norm_torch.cpp, a plain C++ source) can
// call it whether the device code was compiled by nvcc or by hipcc.
#include <cstdint>

namespace rms_norm_gpu {

enum class ScalarKind { kFloat, kDouble, kHalf, kBFloat16 };

// out[r, :] = in[r, :] * rsqrt(mean(in[r, :]^2) + epsilon) * weight for
// r < rows, rows of d elements, on `stream` (a cudaStream_t or hipStream_t;
// nullptr is the default stream). Returns nullptr, or the runtime's text for
// a launch error.
const char *launch_rms_norm(ScalarKind kind, void *out, const void *in, const void *weight, int64_t rows, int d,
                            double epsilon, void *stream);

}  // namespace rms_norm_gpu
