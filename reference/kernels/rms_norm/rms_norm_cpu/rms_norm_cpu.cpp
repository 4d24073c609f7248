// RMS norm, CPU backend: one pass for the sum of squares and one for the
// output per row, rows spread with at::parallel_for, accumulating in the
// op-math type (float for float32/float16/bfloat16).
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>

#include <algorithm>
#include <cmath>

#include "../rms_norm_common/rms_norm_checks.h"
#include "../torch-ext/torch_binding.h"

namespace {

// Elements per at::parallel_for task (rounded to whole rows).
constexpr int64_t kGrainSize = 16384;

}  // namespace

void rms_norm(at::Tensor &out, const at::Tensor &input, const at::Tensor &weight, double epsilon) {
  rms_norm_impl::check_args("cpu", c10::DeviceType::CPU, out, input, weight);
  if (input.numel() == 0) {
    return;
  }
  const int64_t d = input.size(-1);
  const int64_t rows = input.numel() / d;
  const int64_t grain_rows = std::max<int64_t>(1, kGrainSize / d);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "rms_norm_cpu", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    const scalar_t *in = input.const_data_ptr<scalar_t>();
    const scalar_t *w = weight.const_data_ptr<scalar_t>();
    scalar_t *dst = out.mutable_data_ptr<scalar_t>();
    const acc_t eps = static_cast<acc_t>(epsilon);
    at::parallel_for(0, rows, grain_rows, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const scalar_t *x = in + r * d;
        scalar_t *o = dst + r * d;
        acc_t sum_sq = 0;
        for (int64_t j = 0; j < d; ++j) {
          const acc_t v = static_cast<acc_t>(x[j]);
          sum_sq += v * v;
        }
        const acc_t scale = acc_t(1) / std::sqrt(sum_sq / static_cast<acc_t>(d) + eps);
        for (int64_t j = 0; j < d; ++j) {
          o[j] = static_cast<scalar_t>(static_cast<acc_t>(x[j]) * scale * static_cast<acc_t>(w[j]));
        }
      }
    });
  });
}
