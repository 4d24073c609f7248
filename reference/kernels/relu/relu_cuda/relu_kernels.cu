// ReLU device code (CUDA and HIP): out = max(input, 0), elementwise over
// contiguous buffers.
//
// Memory-bound: each thread moves 16-byte packs (8 halves / 4 floats) with a
// grid-stride loop sized to fill every SM; a scalar loop handles the tail and
// the whole tensor when a pointer is not 16-byte aligned.
#include <algorithm>
#include <cstdint>

#include "gpu_compat.h"
#include "relu_launch.h"

namespace {

using gpu_compat::opmath_t;

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

bool is_pack_aligned(const void *p) { return reinterpret_cast<std::uintptr_t>(p) % kPackBytes == 0; }

template <typename scalar_t>
__device__ __forceinline__ scalar_t relu_op(scalar_t x) {
  using acc_t = opmath_t<scalar_t>;
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

template <typename scalar_t>
const char *launch(scalar_t *dst, const scalar_t *in, int64_t n, cudaStream_t stream) {
  const int64_t max_blocks = static_cast<int64_t>(gpu_compat::multiprocessor_count()) * (kMaxThreadsPerSm / kThreads);
  const bool vectorized = is_pack_aligned(in) && is_pack_aligned(dst);
  const int64_t work = vectorized ? std::max<int64_t>(n / Pack<scalar_t>::kSize, 1) : n;
  const dim3 grid(static_cast<unsigned>(std::min((work + kThreads - 1) / kThreads, max_blocks)));
  if (vectorized) {
    relu_kernel<scalar_t, true><<<grid, kThreads, 0, stream>>>(dst, in, n);
  } else {
    relu_kernel<scalar_t, false><<<grid, kThreads, 0, stream>>>(dst, in, n);
  }
  return gpu_compat::launch_error();
}

template <typename scalar_t>
const char *launch_as(void *out, const void *in, int64_t n, void *stream) {
  return launch(static_cast<scalar_t *>(out), static_cast<const scalar_t *>(in), n, static_cast<cudaStream_t>(stream));
}

}  // namespace

namespace relu_gpu {

const char *launch_relu(ScalarKind kind, void *out, const void *in, int64_t n, void *stream) {
  switch (kind) {
    case ScalarKind::kFloat:
      return launch_as<float>(out, in, n, stream);
    case ScalarKind::kDouble:
      return launch_as<double>(out, in, n, stream);
    case ScalarKind::kHalf:
      return launch_as<gpu_compat::Half>(out, in, n, stream);
    case ScalarKind::kBFloat16:
      return launch_as<gpu_compat::BFloat16>(out, in, n, stream);
  }
  return "relu: unknown scalar kind";
}

}  // namespace relu_gpu
