// Activation device code (CUDA and HIP).
//
// Memory-bound kernels: each thread moves 16-byte packs (8 halves / 4 floats)
// in a grid-stride loop sized to fill every SM, converts to the op-math type
// (float for float32/float16/bfloat16), and rounds once on store. A scalar
// loop handles the tail, and the whole tensor when a pointer is not 16-byte
// aligned or (gated ops) d is not a multiple of the pack size.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "../activation_common/activation_functors.h"
#include "activation_launch.h"
#include "gpu_compat.h"

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

// out[i] = act(in[i]) for i < n.
template <typename scalar_t, typename Act, bool kVectorized>
__global__ void __launch_bounds__(kThreads)
    elementwise_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in, int64_t n, Act act) {
  using acc_t = opmath_t<scalar_t>;
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
    gated_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in, IdxT rows, IdxT d, Gate gate) {
  using acc_t = opmath_t<scalar_t>;
  using P = Pack<scalar_t>;
  const IdxT total = rows * d;
  const IdxT stride = static_cast<IdxT>(gridDim.x) * blockDim.x;
  for (IdxT i = static_cast<IdxT>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const IdxT row = i / d;
    const IdxT a_idx = i + row * d;  // row * 2d + (i - row * d)
    if constexpr (kVectorized) {
      const P *in_p = reinterpret_cast<const P *>(in);
      const P a = in_p[a_idx];
      const P b = in_p[a_idx + d];
      P o;
#pragma unroll
      for (int k = 0; k < P::kSize; ++k) {
        o.v[k] = static_cast<scalar_t>(gate(static_cast<acc_t>(a.v[k]), static_cast<acc_t>(b.v[k])));
      }
      reinterpret_cast<P *>(out)[i] = o;
    } else {
      out[i] = static_cast<scalar_t>(gate(static_cast<acc_t>(in[a_idx]), static_cast<acc_t>(in[a_idx + d])));
    }
  }
}

// Blocks for `work` units of one thread each: enough to cover the work, at
// most a full wave of resident threads (the loops are grid-stride).
dim3 grid_for(int64_t work, int64_t sms) {
  const int64_t max_blocks = sms * (kMaxThreadsPerSm / kThreads);
  const int64_t blocks = std::max<int64_t>(1, (work + kThreads - 1) / kThreads);
  return dim3(static_cast<unsigned>(std::min(blocks, max_blocks)));
}

template <typename scalar_t, typename Act>
const char *elementwise(scalar_t *dst, const scalar_t *in, int64_t n, Act act, cudaStream_t stream) {
  const int64_t sms = gpu_compat::multiprocessor_count();
  if (is_pack_aligned(in) && is_pack_aligned(dst)) {
    elementwise_kernel<scalar_t, Act, true>
        <<<grid_for(n / Pack<scalar_t>::kSize, sms), kThreads, 0, stream>>>(dst, in, n, act);
  } else {
    elementwise_kernel<scalar_t, Act, false><<<grid_for(n, sms), kThreads, 0, stream>>>(dst, in, n, act);
  }
  return gpu_compat::launch_error();
}

template <typename scalar_t, typename Gate, typename IdxT>
const char *launch_gated(scalar_t *dst, const scalar_t *in, int64_t rows, int64_t d, Gate gate, cudaStream_t stream) {
  constexpr int64_t kSize = Pack<scalar_t>::kSize;
  const int64_t sms = gpu_compat::multiprocessor_count();
  if (d % kSize == 0 && is_pack_aligned(in) && is_pack_aligned(dst)) {
    const int64_t d_packs = d / kSize;
    gated_kernel<scalar_t, Gate, IdxT, true><<<grid_for(rows * d_packs, sms), kThreads, 0, stream>>>(
        dst, in, static_cast<IdxT>(rows), static_cast<IdxT>(d_packs), gate);
  } else {
    gated_kernel<scalar_t, Gate, IdxT, false><<<grid_for(rows * d, sms), kThreads, 0, stream>>>(
        dst, in, static_cast<IdxT>(rows), static_cast<IdxT>(d), gate);
  }
  return gpu_compat::launch_error();
}

template <typename scalar_t, typename Gate>
const char *gated(scalar_t *dst, const scalar_t *in, int64_t rows, int64_t d, Gate gate, cudaStream_t stream) {
  // The input holds rows * 2d elements; below 2^31 the index math is 32-bit.
  if (rows * 2 * d <= std::numeric_limits<int32_t>::max()) {
    return launch_gated<scalar_t, Gate, uint32_t>(dst, in, rows, d, gate, stream);
  }
  return launch_gated<scalar_t, Gate, int64_t>(dst, in, rows, d, gate, stream);
}

// Calls body(scalar_t{}) with the C++ type of `kind` (AT_DISPATCH's role).
template <typename Body>
const char *with_scalar_type(activation_gpu::ScalarKind kind, Body body) {
  switch (kind) {
    case activation_gpu::ScalarKind::kFloat:
      return body(float{});
    case activation_gpu::ScalarKind::kDouble:
      return body(double{});
    case activation_gpu::ScalarKind::kHalf:
      return body(gpu_compat::Half{});
    case activation_gpu::ScalarKind::kBFloat16:
      return body(gpu_compat::BFloat16{});
  }
  return "activation: unknown scalar kind";
}

template <typename Act>
const char *elementwise_as(activation_gpu::ScalarKind kind, void *out, const void *in, int64_t n, Act act,
                           void *stream) {
  return with_scalar_type(kind, [&](auto tag) {
    using scalar_t = decltype(tag);
    return elementwise(static_cast<scalar_t *>(out), static_cast<const scalar_t *>(in), n, act,
                       static_cast<cudaStream_t>(stream));
  });
}

template <typename Gate>
const char *gated_as(activation_gpu::ScalarKind kind, void *out, const void *in, int64_t rows, int64_t d, Gate gate,
                     void *stream) {
  return with_scalar_type(kind, [&](auto tag) {
    using scalar_t = decltype(tag);
    return gated(static_cast<scalar_t *>(out), static_cast<const scalar_t *>(in), rows, d, gate,
                 static_cast<cudaStream_t>(stream));
  });
}

}  // namespace

namespace activation_gpu {

const char *launch_elementwise(ElementwiseOp op, ScalarKind kind, void *out, const void *in, int64_t n, void *stream) {
  switch (op) {
    case ElementwiseOp::kSilu:
      return elementwise_as(kind, out, in, n, activation::Silu(), stream);
    case ElementwiseOp::kGeluErf:
      return elementwise_as(kind, out, in, n, activation::GeluErf(), stream);
    case ElementwiseOp::kGeluTanh:
      return elementwise_as(kind, out, in, n, activation::GeluTanh(), stream);
    case ElementwiseOp::kGeluFast:
      return elementwise_as(kind, out, in, n, activation::GeluFast(), stream);
    case ElementwiseOp::kGeluQuick:
      return elementwise_as(kind, out, in, n, activation::GeluQuick(), stream);
  }
  return "activation: unknown elementwise op";
}

const char *launch_gated(GatedOp op, ScalarKind kind, void *out, const void *in, int64_t rows, int64_t d,
                         double threshold, void *stream) {
  switch (op) {
    case GatedOp::kSiluAndMul:
      return gated_as(kind, out, in, rows, d, activation::SiluAndMul(), stream);
    case GatedOp::kMulAndSilu:
      return gated_as(kind, out, in, rows, d, activation::MulAndSilu(), stream);
    case GatedOp::kGeluAndMul:
      return gated_as(kind, out, in, rows, d, activation::GeluAndMul(), stream);
    case GatedOp::kGeluTanhAndMul:
      return gated_as(kind, out, in, rows, d, activation::GeluTanhAndMul(), stream);
    case GatedOp::kFatReluAndMul:
      return gated_as(kind, out, in, rows, d, activation::FatReluAndMul{threshold}, stream);
  }
  return "activation: unknown gated op";
}

}  // namespace activation_gpu
