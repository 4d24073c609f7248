// ReLU, CUDA backend: out = max(input, 0), elementwise over contiguous tensors.
//
// Memory-bound: each thread moves 16-byte packs (8 halves / 4 floats) with a
// grid-stride loop sized to fill every SM; a scalar loop handles the tail and
// the whole tensor when a pointer is not 16-byte aligned.
#include <ATen/DeviceGuard.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>

#include <algorithm>
#include <cstdint>

#include "../torch-ext/torch_binding.h"

namespace {

constexpr int kThreads = 256;
constexpr int kMaxThreadsPerSm = 2048;
constexpr int kPackBytes = 16;
constexpr int kUnroll = 4;

// 16 bytes of T, loaded and stored with one vector instruction.
template <typename T>
struct alignas(kPackBytes) Pack {
  static constexpr int kSize = kPackBytes / sizeof(T);
  T v[kSize];
};

bool is_pack_aligned(const void *p) {
  return reinterpret_cast<std::uintptr_t>(p) % kPackBytes == 0;
}

template <typename scalar_t>
__device__ __forceinline__ scalar_t relu_op(scalar_t x) {
  using acc_t = at::opmath_type<scalar_t>;
  // x < 0 is false for NaN, so NaN propagates like torch.relu.
  return static_cast<acc_t>(x) < acc_t(0) ? scalar_t(0) : x;
}

template <typename scalar_t, bool kVectorized>
__global__ void __launch_bounds__(kThreads)
    relu_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in, int64_t n) {
  using P = Pack<scalar_t>;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  int64_t scalar_begin = 0;
  if constexpr (kVectorized) {
    const int64_t npacks = n / P::kSize;
    const P *in_p = reinterpret_cast<const P *>(in);
    P *out_p = reinterpret_cast<P *>(out);
    // kUnroll independent packs per thread and iteration: all loads are
    // issued before the first use, keeping more bytes in flight.
    for (int64_t base = tid; base < npacks; base += stride * kUnroll) {
      P p[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int64_t i = base + u * stride;
        if (i < npacks) {
          p[u] = in_p[i];
        }
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int64_t i = base + u * stride;
        if (i < npacks) {
#pragma unroll
          for (int k = 0; k < P::kSize; ++k) {
            p[u].v[k] = relu_op(p[u].v[k]);
          }
          out_p[i] = p[u];
        }
      }
    }
    scalar_begin = npacks * P::kSize;
  }
  for (int64_t i = scalar_begin + tid; i < n; i += stride) {
    out[i] = relu_op(in[i]);
  }
}

void check_relu_args(const at::Tensor &out, const at::Tensor &input) {
  TORCH_CHECK(input.is_cuda(), "relu (cuda): input must be a CUDA tensor, got ",
              input.device());
  TORCH_CHECK(out.device() == input.device(), "relu (cuda): out is on ", out.device(),
              " but input is on ", input.device());
  const auto dtype = input.scalar_type();
  TORCH_CHECK(dtype == at::kFloat || dtype == at::kHalf || dtype == at::kBFloat16 ||
                  dtype == at::kDouble,
              "relu (cuda): input dtype must be float32, float16, bfloat16 or float64, got ",
              dtype);
  TORCH_CHECK(out.scalar_type() == dtype, "relu (cuda): out dtype ", out.scalar_type(),
              " differs from input dtype ", dtype);
  TORCH_CHECK(out.sizes() == input.sizes(), "relu (cuda): out shape ", out.sizes(),
              " differs from input shape ", input.sizes());
  TORCH_CHECK(input.is_contiguous(), "relu (cuda): input must be contiguous");
  TORCH_CHECK(out.is_contiguous(), "relu (cuda): out must be contiguous");
}

}  // namespace

void relu(at::Tensor &out, const at::Tensor &input) {
  check_relu_args(out, input);
  const int64_t n = input.numel();
  if (n == 0) {
    return;
  }
  const at::cuda::OptionalCUDAGuard device_guard(device_of(input));
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  const int64_t max_blocks = static_cast<int64_t>(
      at::cuda::getCurrentDeviceProperties()->multiProcessorCount) * (kMaxThreadsPerSm / kThreads);

  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "relu_cuda", [&] {
    const scalar_t *in = input.const_data_ptr<scalar_t>();
    scalar_t *dst = out.mutable_data_ptr<scalar_t>();
    const bool vectorized = is_pack_aligned(in) && is_pack_aligned(dst);
    const int64_t work = vectorized ? std::max<int64_t>(n / Pack<scalar_t>::kSize, 1) : n;
    const dim3 grid(static_cast<unsigned>(std::min((work + kThreads - 1) / kThreads, max_blocks)));
    if (vectorized) {
      relu_kernel<scalar_t, true><<<grid, kThreads, 0, stream>>>(dst, in, n);
    } else {
      relu_kernel<scalar_t, false><<<grid, kThreads, 0, stream>>>(dst, in, n);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
}
