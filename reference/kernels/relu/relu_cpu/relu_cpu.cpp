// ReLU, CPU backend: out = max(input, 0), elementwise over contiguous tensors.
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>

#include "../torch-ext/torch_binding.h"

namespace {

// Elements per at::parallel_for task: large enough that a task is worth
// scheduling, small enough to spread a few MiB over the cores.
constexpr int64_t kGrainSize = 32768;

void check_relu_args(const at::Tensor &out, const at::Tensor &input) {
  TORCH_CHECK(input.device().is_cpu(), "relu (cpu): input must be a CPU tensor, got ", input.device());
  TORCH_CHECK(out.device() == input.device(), "relu (cpu): out is on ", out.device(), " but input is on ",
              input.device());
  const auto dtype = input.scalar_type();
  TORCH_CHECK(dtype == at::kFloat || dtype == at::kHalf || dtype == at::kBFloat16 || dtype == at::kDouble,
              "relu (cpu): input dtype must be float32, float16, bfloat16 or float64, got ", dtype);
  TORCH_CHECK(out.scalar_type() == dtype, "relu (cpu): out dtype ", out.scalar_type(), " differs from input dtype ",
              dtype);
  TORCH_CHECK(out.sizes() == input.sizes(), "relu (cpu): out shape ", out.sizes(), " differs from input shape ",
              input.sizes());
  TORCH_CHECK(input.is_contiguous(), "relu (cpu): input must be contiguous");
  TORCH_CHECK(out.is_contiguous(), "relu (cpu): out must be contiguous");
}

}  // namespace

void relu(at::Tensor &out, const at::Tensor &input) {
  check_relu_args(out, input);
  const int64_t n = input.numel();
  if (n == 0) {
    return;
  }
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "relu_cpu", [&] {
    const scalar_t *in = input.const_data_ptr<scalar_t>();
    scalar_t *dst = out.mutable_data_ptr<scalar_t>();
    at::parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) {
      const scalar_t zero(0);
      for (int64_t i = begin; i < end; ++i) {
        const scalar_t x = in[i];
        // NaN propagates (as torch.relu does): NaN > 0 is false, so test x < 0.
        dst[i] = x < zero ? zero : x;
      }
    });
  });
}
