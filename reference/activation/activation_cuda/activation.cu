// Activation ops, CUDA backend.
//
// Memory-bound kernels: each thread moves 16-byte packs (8 halves / 4 floats)
// in a grid-stride loop sized to fill every SM, converts to the op-math type
// (float for float32/float16/bfloat16), and rounds once on store. A scalar
// loop handles the tail, and the whole tensor when a pointer is not 16-byte
// aligned or (gated ops) d is not a multiple of the pack size.
#include <ATen/DeviceGuard.h>
#include <ATen/Dispatch.h>
#include <ATen/OpMathType.h>
#include <ATen/core/Tensor.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "../activation_common/activation_functions.h"
#include "../torch-ext/torch_binding.h"

namespace {

using activation::Shape;

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

// out[i] = act(in[i]) for i < n.
template <typename scalar_t, typename Act, bool kVectorized>
__global__ void __launch_bounds__(kThreads)
    elementwise_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in, int64_t n,
                       Act act) {
  using acc_t = at::opmath_type<scalar_t>;
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
            p[u].v[k] = static_cast<scalar_t>(act(static_cast<acc_t>(p[u].v[k])));
          }
          out_p[i] = p[u];
        }
      }
    }
    scalar_begin = npacks * P::kSize;
  }
  for (int64_t i = scalar_begin + tid; i < n; i += stride) {
    out[i] = static_cast<scalar_t>(act(static_cast<acc_t>(in[i])));
  }
}

// out[r, j] = gate(in[r, j], in[r, d + j]) for r < rows, j < d. In the
// vectorised form, d counts packs (d_elems / kSize). IdxT is uint32_t when
// the input has fewer than 2^31 elements, so the row/column split is a
// 32-bit division.
template <typename scalar_t, typename Gate, typename IdxT, bool kVectorized>
__global__ void __launch_bounds__(kThreads)
    gated_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in, IdxT rows, IdxT d,
                 Gate gate) {
  using acc_t = at::opmath_type<scalar_t>;
  using P = Pack<scalar_t>;
  const IdxT total = rows * d;
  const IdxT stride = static_cast<IdxT>(gridDim.x) * blockDim.x;
  for (IdxT i = static_cast<IdxT>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += stride) {
    const IdxT row = i / d;
    const IdxT a_idx = i + row * d;  // row * 2d + (i - row * d)
    if constexpr (kVectorized) {
      const P *in_p = reinterpret_cast<const P *>(in);
      const P a = in_p[a_idx];
      const P b = in_p[a_idx + d];
      P o;
#pragma unroll
      for (int k = 0; k < P::kSize; ++k) {
        o.v[k] = static_cast<scalar_t>(
            gate(static_cast<acc_t>(a.v[k]), static_cast<acc_t>(b.v[k])));
      }
      reinterpret_cast<P *>(out)[i] = o;
    } else {
      out[i] = static_cast<scalar_t>(
          gate(static_cast<acc_t>(in[a_idx]), static_cast<acc_t>(in[a_idx + d])));
    }
  }
}

// Blocks for `work` units of one thread each: enough to cover the work, at
// most a full wave of resident threads (the loops are grid-stride).
dim3 grid_for(int64_t work) {
  const int64_t sms = at::cuda::getCurrentDeviceProperties()->multiProcessorCount;
  const int64_t max_blocks = sms * (kMaxThreadsPerSm / kThreads);
  const int64_t blocks = std::max<int64_t>(1, (work + kThreads - 1) / kThreads);
  return dim3(static_cast<unsigned>(std::min(blocks, max_blocks)));
}

template <typename Act>
void elementwise(const char *op, at::Tensor &out, const at::Tensor &input, Act act) {
  activation::check_args(op, "cuda", c10::DeviceType::CUDA, out, input, Shape::kElementwise);
  const int64_t n = input.numel();
  if (n == 0) {
    return;
  }
  const at::cuda::OptionalCUDAGuard device_guard(device_of(input));
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "activation_cuda", [&] {
    const scalar_t *in = input.const_data_ptr<scalar_t>();
    scalar_t *dst = out.mutable_data_ptr<scalar_t>();
    if (is_pack_aligned(in) && is_pack_aligned(dst)) {
      elementwise_kernel<scalar_t, Act, true>
          <<<grid_for(n / Pack<scalar_t>::kSize), kThreads, 0, stream>>>(dst, in, n, act);
    } else {
      elementwise_kernel<scalar_t, Act, false>
          <<<grid_for(n), kThreads, 0, stream>>>(dst, in, n, act);
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
}

template <typename scalar_t, typename Gate, typename IdxT>
void launch_gated(scalar_t *dst, const scalar_t *in, int64_t rows, int64_t d, Gate gate,
                  cudaStream_t stream) {
  constexpr int64_t kSize = Pack<scalar_t>::kSize;
  if (d % kSize == 0 && is_pack_aligned(in) && is_pack_aligned(dst)) {
    const int64_t d_packs = d / kSize;
    gated_kernel<scalar_t, Gate, IdxT, true><<<grid_for(rows * d_packs), kThreads, 0, stream>>>(
        dst, in, static_cast<IdxT>(rows), static_cast<IdxT>(d_packs), gate);
  } else {
    gated_kernel<scalar_t, Gate, IdxT, false><<<grid_for(rows * d), kThreads, 0, stream>>>(
        dst, in, static_cast<IdxT>(rows), static_cast<IdxT>(d), gate);
  }
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

template <typename Gate>
void gated(const char *op, at::Tensor &out, const at::Tensor &input, Gate gate) {
  activation::check_args(op, "cuda", c10::DeviceType::CUDA, out, input, Shape::kGated);
  if (out.numel() == 0) {
    return;
  }
  const int64_t d = out.size(-1);
  const int64_t rows = out.numel() / d;
  const at::cuda::OptionalCUDAGuard device_guard(device_of(input));
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  const bool small = input.numel() <= std::numeric_limits<int32_t>::max();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "activation_cuda", [&] {
    const scalar_t *in = input.const_data_ptr<scalar_t>();
    scalar_t *dst = out.mutable_data_ptr<scalar_t>();
    if (small) {
      launch_gated<scalar_t, Gate, uint32_t>(dst, in, rows, d, gate, stream);
    } else {
      launch_gated<scalar_t, Gate, int64_t>(dst, in, rows, d, gate, stream);
    }
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

void gelu_new(at::Tensor &out, const at::Tensor &input) {
  elementwise("gelu_new", out, input, activation::GeluTanh());
}

void gelu_fast(at::Tensor &out, const at::Tensor &input) {
  elementwise("gelu_fast", out, input, activation::GeluFast());
}

void gelu_quick(at::Tensor &out, const at::Tensor &input) {
  elementwise("gelu_quick", out, input, activation::GeluQuick());
}

void gelu_tanh(at::Tensor &out, const at::Tensor &input) {
  elementwise("gelu_tanh", out, input, activation::GeluTanh());
}

void silu(at::Tensor &out, const at::Tensor &input) {
  elementwise("silu", out, input, activation::Silu());
}

void gelu(at::Tensor &out, const at::Tensor &input) {
  elementwise("gelu", out, input, activation::GeluErf());
}
