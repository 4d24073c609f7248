#pragma once

// Activation functions and argument checks shared by the CPU and CUDA
// components. The functors are evaluated in the op-math type (float for
// float32/float16/bfloat16, double for float64); the kernels convert on load
// and round once on store.

#include <ATen/core/Tensor.h>
#include <c10/macros/Macros.h>
#include <c10/util/Exception.h>

#include <cmath>

namespace activation {

// Elementwise activations (op(out, input), same shape).

struct Silu {
  template <typename T>
  C10_HOST_DEVICE T operator()(T x) const {
    return x / (T(1) + std::exp(-x));
  }
};

// Exact GELU: 0.5 * x * (1 + erf(x / sqrt(2))).
struct GeluErf {
  template <typename T>
  C10_HOST_DEVICE T operator()(T x) const {
    return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440)));
  }
};

// Tanh approximation: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
// Used by gelu_new, gelu_tanh and gelu_tanh_and_mul.
struct GeluTanh {
  template <typename T>
  C10_HOST_DEVICE T operator()(T x) const {
    const T inner = T(0.7978845608028654) * (x + T(0.044715) * x * x * x);
    return T(0.5) * x * (T(1) + std::tanh(inner));
  }
};

// vLLM's gelu_fast: 0.5 * x * (1 + tanh(x * 0.7978845608 * (1 + 0.044715 x^2))).
struct GeluFast {
  template <typename T>
  C10_HOST_DEVICE T operator()(T x) const {
    return T(0.5) * x * (T(1) + std::tanh(x * T(0.7978845608) * (T(1) + T(0.044715) * x * x)));
  }
};

// x * sigmoid(1.702 x).
struct GeluQuick {
  template <typename T>
  C10_HOST_DEVICE T operator()(T x) const {
    return x / (T(1) + std::exp(T(-1.702) * x));
  }
};

// Gated activations (op(out, input) with input [..., 2d], out [..., d]):
// a = input[..., :d], b = input[..., d:].

template <typename Act>
struct ActAndMul {  // act(a) * b
  template <typename T>
  C10_HOST_DEVICE T operator()(T a, T b) const {
    return Act()(a) * b;
  }
};

template <typename Act>
struct MulAndAct {  // a * act(b)
  template <typename T>
  C10_HOST_DEVICE T operator()(T a, T b) const {
    return a * Act()(b);
  }
};

struct FatReluAndMul {  // (a > threshold ? a : 0) * b
  double threshold;
  template <typename T>
  C10_HOST_DEVICE T operator()(T a, T b) const {
    return (a > static_cast<T>(threshold) ? a : T(0)) * b;
  }
};

using SiluAndMul = ActAndMul<Silu>;
using MulAndSilu = MulAndAct<Silu>;
using GeluAndMul = ActAndMul<GeluErf>;
using GeluTanhAndMul = ActAndMul<GeluTanh>;

enum class Shape { kElementwise, kGated };

// Checks shared by every op; `backend` is "cpu" or "cuda" and names the
// device type the tensors must live on.
inline void check_args(const char *op, const char *backend, c10::DeviceType device_type,
                       const at::Tensor &out, const at::Tensor &input, Shape shape) {
  TORCH_CHECK(input.device().type() == device_type, op, " (", backend, "): input must be a ",
              c10::DeviceTypeName(device_type), " tensor, got ", input.device());
  TORCH_CHECK(out.device() == input.device(), op, " (", backend, "): out is on ", out.device(),
              " but input is on ", input.device());
  const auto dtype = input.scalar_type();
  TORCH_CHECK(dtype == at::kFloat || dtype == at::kHalf || dtype == at::kBFloat16 ||
                  dtype == at::kDouble,
              op, " (", backend,
              "): input dtype must be float32, float16, bfloat16 or float64, got ", dtype);
  TORCH_CHECK(out.scalar_type() == dtype, op, " (", backend, "): out dtype ",
              out.scalar_type(), " differs from input dtype ", dtype);
  TORCH_CHECK(input.is_contiguous(), op, " (", backend, "): input must be contiguous");
  TORCH_CHECK(out.is_contiguous(), op, " (", backend, "): out must be contiguous");
  if (shape == Shape::kElementwise) {
    TORCH_CHECK(out.sizes() == input.sizes(), op, " (", backend, "): out shape ", out.sizes(),
                " differs from input shape ", input.sizes());
    return;
  }
  TORCH_CHECK(input.dim() >= 1, op, " (", backend,
              "): input must have at least one dimension");
  const int64_t last = input.size(-1);
  TORCH_CHECK(last % 2 == 0, op, " (", backend,
              "): the last dimension of input must be even (2 * d), got ", last);
  auto expected = input.sizes().vec();
  expected.back() = last / 2;
  TORCH_CHECK(out.sizes() == at::IntArrayRef(expected), op, " (", backend, "): out shape ",
              out.sizes(), " must be input shape with the last dimension halved ",
              at::IntArrayRef(expected));
}

}  // namespace activation
