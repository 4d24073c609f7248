// Activation ops, CPU backend. Plain loops over contiguous tensors,
// parallelised with at::parallel_for, computing in the op-math type.
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>

#include <algorithm>

#include "../activation_common/activation_functions.h"
#include "../torch-ext/torch_binding.h"

namespace {

using activation::Shape;

// Elements per at::parallel_for task.
constexpr int64_t kGrainSize = 16384;

template <typename Act>
void elementwise(const char *op, at::Tensor &out, const at::Tensor &input, Act act) {
  activation::check_args(op, "cpu", c10::DeviceType::CPU, out, input, Shape::kElementwise);
  const int64_t n = input.numel();
  if (n == 0) {
    return;
  }
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "activation_cpu", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    const scalar_t *in = input.const_data_ptr<scalar_t>();
    scalar_t *dst = out.mutable_data_ptr<scalar_t>();
    at::parallel_for(0, n, kGrainSize, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        dst[i] = static_cast<scalar_t>(act(static_cast<acc_t>(in[i])));
      }
    });
  });
}

template <typename Gate>
void gated(const char *op, at::Tensor &out, const at::Tensor &input, Gate gate) {
  activation::check_args(op, "cpu", c10::DeviceType::CPU, out, input, Shape::kGated);
  if (out.numel() == 0) {
    return;
  }
  const int64_t d = out.size(-1);
  const int64_t rows = out.numel() / d;
  const int64_t grain_rows = std::max<int64_t>(1, kGrainSize / d);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "activation_cpu", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    const scalar_t *in = input.const_data_ptr<scalar_t>();
    scalar_t *dst = out.mutable_data_ptr<scalar_t>();
    at::parallel_for(0, rows, grain_rows, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const scalar_t *a = in + r * 2 * d;
        const scalar_t *b = a + d;
        scalar_t *o = dst + r * d;
        for (int64_t j = 0; j < d; ++j) {
          o[j] = static_cast<scalar_t>(gate(static_cast<acc_t>(a[j]), static_cast<acc_t>(b[j])));
        }
      }
    });
  });
}

}  // namespace

void silu_and_mul(at::Tensor &out, const at::Tensor &input) {
  gated("silu_and_mul", out, input, activation::SiluAndMul());
}

void mul_and_silu(at::Tensor &out, const at::Tensor &input) {
  gated("mul_and_silu", out, input, activation::MulAndSilu());
}

void gelu_and_mul(at::Tensor &out, const at::Tensor &input) {
  gated("gelu_and_mul", out, input, activation::GeluAndMul());
}

void gelu_tanh_and_mul(at::Tensor &out, const at::Tensor &input) {
  gated("gelu_tanh_and_mul", out, input, activation::GeluTanhAndMul());
}

void fatrelu_and_mul(at::Tensor &out, const at::Tensor &input, double threshold) {
  gated("fatrelu_and_mul", out, input, activation::FatReluAndMul{threshold});
}

void gelu_new(at::Tensor &out, const at::Tensor &input) { elementwise("gelu_new", out, input, activation::GeluTanh()); }

void gelu_fast(at::Tensor &out, const at::Tensor &input) {
  elementwise("gelu_fast", out, input, activation::GeluFast());
}

void gelu_quick(at::Tensor &out, const at::Tensor &input) {
  elementwise("gelu_quick", out, input, activation::GeluQuick());
}

void gelu_tanh(at::Tensor &out, const at::Tensor &input) {
  elementwise("gelu_tanh", out, input, activation::GeluTanh());
}

void silu(at::Tensor &out, const at::Tensor &input) { elementwise("silu", out, input, activation::Silu()); }

void gelu(at::Tensor &out, const at::Tensor &input) { elementwise("gelu", out, input, activation::GeluErf()); }
