// RMS norm device code (CUDA and HIP).
//
// One block per row (grid-stride over rows): pass 1 sums squares in float32
// with 16-byte packed loads and a warp-shuffle block reduction, pass 2
// re-reads the row (now in L1/L2) and writes input * scale * weight. Packed
// access needs d to be a multiple of the pack size and 16-byte aligned
// pointers; otherwise the same kernel runs with scalar accesses.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "gpu_compat.h"
#include "rms_norm_launch.h"

namespace {

using gpu_compat::opmath_t;

constexpr int kWarpSize = 32;
constexpr int kMaxThreads = 1024;
constexpr int kMaxThreadsPerSm = 2048;
constexpr int kPackBytes = 16;

// 16 bytes of T, loaded and stored with one vector instruction.
template <typename T>
struct alignas(kPackBytes) Pack {
  static constexpr int kSize = kPackBytes / sizeof(T);
  T v[kSize];
};

bool is_pack_aligned(const void *p) { return reinterpret_cast<std::uintptr_t>(p) % kPackBytes == 0; }

__device__ __forceinline__ float reciprocal_sqrt(float x) { return rsqrtf(x); }
__device__ __forceinline__ double reciprocal_sqrt(double x) { return rsqrt(x); }

template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  }
  return v;
}

// Sum over the block (blockDim.x a multiple of 32); the result is valid in
// thread 0. `partial` holds one value per warp.
template <typename T>
__device__ __forceinline__ T block_sum(T v, T *partial) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  v = warp_sum(v);
  if (lane == 0) {
    partial[warp] = v;
  }
  __syncthreads();
  if (warp == 0) {
    const int warps = blockDim.x / kWarpSize;
    v = warp_sum(lane < warps ? partial[lane] : T(0));
  }
  return v;
}

// In the packed form every pointer is a Pack pointer and `width` counts packs.
template <typename scalar_t, bool kVectorized>
__global__ void __launch_bounds__(kMaxThreads)
    rms_norm_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in, const scalar_t *__restrict__ weight,
                    int64_t rows, int d, opmath_t<scalar_t> eps) {
  using acc_t = opmath_t<scalar_t>;
  using Unit = std::conditional_t<kVectorized, Pack<scalar_t>, scalar_t>;
  constexpr int kPerUnit = kVectorized ? Pack<scalar_t>::kSize : 1;
  const int width = d / kPerUnit;
  const Unit *w_u = reinterpret_cast<const Unit *>(weight);

  __shared__ acc_t partial[kMaxThreads / kWarpSize];
  __shared__ acc_t row_scale;

  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const Unit *x_u = reinterpret_cast<const Unit *>(in + row * d);
    Unit *o_u = reinterpret_cast<Unit *>(out + row * d);

    acc_t sum_sq = 0;
    for (int i = threadIdx.x; i < width; i += blockDim.x) {
      const Unit u = x_u[i];
      const scalar_t *e = reinterpret_cast<const scalar_t *>(&u);
#pragma unroll
      for (int k = 0; k < kPerUnit; ++k) {
        const acc_t v = static_cast<acc_t>(e[k]);
        sum_sq += v * v;
      }
    }
    sum_sq = block_sum(sum_sq, partial);
    if (threadIdx.x == 0) {
      row_scale = reciprocal_sqrt(sum_sq / static_cast<acc_t>(d) + eps);
    }
    __syncthreads();
    const acc_t scale = row_scale;

    for (int i = threadIdx.x; i < width; i += blockDim.x) {
      const Unit u = x_u[i];
      const Unit wu = w_u[i];
      Unit r;
      const scalar_t *e = reinterpret_cast<const scalar_t *>(&u);
      const scalar_t *we = reinterpret_cast<const scalar_t *>(&wu);
      scalar_t *re = reinterpret_cast<scalar_t *>(&r);
#pragma unroll
      for (int k = 0; k < kPerUnit; ++k) {
        re[k] = static_cast<scalar_t>(static_cast<acc_t>(e[k]) * scale * static_cast<acc_t>(we[k]));
      }
      o_u[i] = r;
    }
    // The next row's block_sum writes `partial` only after its own barrier,
    // which every thread reaches after reading row_scale here.
  }
}

template <typename scalar_t>
const char *launch(scalar_t *dst, const scalar_t *in, const scalar_t *w, int64_t rows, int d, double epsilon,
                   cudaStream_t stream) {
  using acc_t = opmath_t<scalar_t>;
  const int64_t sms = gpu_compat::multiprocessor_count();
  constexpr int kSize = Pack<scalar_t>::kSize;
  const bool vectorized = d % kSize == 0 && is_pack_aligned(in) && is_pack_aligned(w) && is_pack_aligned(dst);
  const int width = vectorized ? d / kSize : d;
  // One thread per unit of the row, in whole warps, at most 1024.
  const int threads = std::min(kMaxThreads, std::max(kWarpSize, (width + kWarpSize - 1) / kWarpSize * kWarpSize));
  const int64_t resident_blocks = sms * std::max(1, kMaxThreadsPerSm / threads);
  const dim3 grid(static_cast<unsigned>(std::min(rows, resident_blocks)));
  const acc_t eps = static_cast<acc_t>(epsilon);
  if (vectorized) {
    rms_norm_kernel<scalar_t, true><<<grid, threads, 0, stream>>>(dst, in, w, rows, d, eps);
  } else {
    rms_norm_kernel<scalar_t, false><<<grid, threads, 0, stream>>>(dst, in, w, rows, d, eps);
  }
  return gpu_compat::launch_error();
}

template <typename scalar_t>
const char *launch_as(void *out, const void *in, const void *weight, int64_t rows, int d, double epsilon,
                      void *stream) {
  return launch(static_cast<scalar_t *>(out), static_cast<const scalar_t *>(in), static_cast<const scalar_t *>(weight),
                rows, d, epsilon, static_cast<cudaStream_t>(stream));
}

}  // namespace

namespace rms_norm_gpu {

const char *launch_rms_norm(ScalarKind kind, void *out, const void *in, const void *weight, int64_t rows, int d,
                            double epsilon, void *stream) {
  switch (kind) {
    case ScalarKind::kFloat:
      return launch_as<float>(out, in, weight, rows, d, epsilon, stream);
    case ScalarKind::kDouble:
      return launch_as<double>(out, in, weight, rows, d, epsilon, stream);
    case ScalarKind::kHalf:
      return launch_as<gpu_compat::Half>(out, in, weight, rows, d, epsilon, stream);
    case ScalarKind::kBFloat16:
      return launch_as<gpu_compat::BFloat16>(out, in, weight, rows, d, epsilon, stream);
  }
  return "rms_norm: unknown scalar kind";
}

}  // namespace rms_norm_gpu
