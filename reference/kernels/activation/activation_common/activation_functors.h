#pragma once

// The activation functors, shared by the CPU component and the device code
// (compiled by nvcc or hipcc). No Torch headers. The functors are evaluated
// in the op-math type (float for float32/float16/bfloat16, double for
// float64); the kernels convert on load and round once on store.

#include <cmath>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define ACTIVATION_HOST_DEVICE __host__ __device__
#else
#define ACTIVATION_HOST_DEVICE
#endif

namespace activation {

// Elementwise activations (op(out, input), same shape).

struct Silu {
  template <typename T>
  ACTIVATION_HOST_DEVICE T operator()(T x) const {
    return x / (T(1) + std::exp(-x));
  }
};

// Exact GELU: 0.5 * x * (1 + erf(x / sqrt(2))). The device code computes
// float16/bfloat16 outputs without erff, to the same accuracy
// (GeluErfNarrow in activation_cuda/activation_kernels.cu).
struct GeluErf {
  template <typename T>
  ACTIVATION_HOST_DEVICE T operator()(T x) const {
    return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440)));
  }
};

// Tanh approximation: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
// Used by gelu_new, gelu_tanh and gelu_tanh_and_mul.
struct GeluTanh {
  template <typename T>
  ACTIVATION_HOST_DEVICE T operator()(T x) const {
    const T inner = T(0.7978845608028654) * (x + T(0.044715) * x * x * x);
    return T(0.5) * x * (T(1) + std::tanh(inner));
  }
};

// vLLM's gelu_fast: 0.5 * x * (1 + tanh(x * 0.7978845608 * (1 + 0.044715 x^2))).
struct GeluFast {
  template <typename T>
  ACTIVATION_HOST_DEVICE T operator()(T x) const {
    return T(0.5) * x * (T(1) + std::tanh(x * T(0.7978845608) * (T(1) + T(0.044715) * x * x)));
  }
};

// x * sigmoid(1.702 x).
struct GeluQuick {
  template <typename T>
  ACTIVATION_HOST_DEVICE T operator()(T x) const {
    return x / (T(1) + std::exp(T(-1.702) * x));
  }
};

// Gated activations (op(out, input) with input [..., 2d], out [..., d]):
// a = input[..., :d], b = input[..., d:].

template <typename Act>
struct ActAndMul {  // act(a) * b
  template <typename T>
  ACTIVATION_HOST_DEVICE T operator()(T a, T b) const {
    return Act()(a) * b;
  }
};

template <typename Act>
struct MulAndAct {  // a * act(b)
  template <typename T>
  ACTIVATION_HOST_DEVICE T operator()(T a, T b) const {
    return a * Act()(b);
  }
};

struct FatReluAndMul {  // (a > threshold ? a : 0) * b
  double threshold;
  template <typename T>
  ACTIVATION_HOST_DEVICE T operator()(T a, T b) const {
    return (a > static_cast<T>(threshold) ? a : T(0)) * b;
  }
};

using SiluAndMul = ActAndMul<Silu>;
using MulAndSilu = MulAndAct<Silu>;
using GeluAndMul = ActAndMul<GeluErf>;
using GeluTanhAndMul = ActAndMul<GeluTanh>;

}  // namespace activation
