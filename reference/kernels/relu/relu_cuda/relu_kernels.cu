// ReLU device code (CUDA and HIP): out = max(input, 0), elementwise over
// contiguous buffers.
//
// Memory-bound, so the layout of the accesses is the whole design. Each
// thread moves one 16-byte pack (8 halves / 4 floats) per tile: load, op,
// store, coalesced across the warp; blocks of kThreads threads, one tile of
// kThreads * kPerThread packs each, as many blocks as tiles, so the hardware
// keeps every SM full of short blocks (a grid-stride loop over tiles keeps
// any size correct). Measured on an H100 (reference/kernels/tests/
// roofline_probe.py, issue #32): this shape moves 99-100% of the
// device-to-device copy bandwidth, as Torch's own elementwise kernel does;
// more packs per thread (2-8, all loads issued first) or a persistent grid of
// resident blocks moved 92-98%. Blocks of 1024 threads moved 0.1-0.5% more
// than 512 at 16384 x 8192 in the probe (two H100 runs, 2026-11-27), 128 or
// 256 threads 0.3-0.5% less; in `kcheck bench` (five runs) 1024 gained in
// float32 only (355.9 -> 354.9 us), 16-bit unchanged. The fewer than 8
// elements past the last whole pack are done by block 0 with scalar
// accesses, and a pointer that is not 16-byte aligned makes the whole tensor
// take the scalar form of the kernel.
// On an H200 (2026-11-28, bench/results/roofline-h200-2026-11-28-probe17b.log;
// probe16b for 1024 against 128) blocks of 1024 moved 5.0-6.3% less than
// blocks of 256 (136.3 against 127.7 us in bfloat16, 264.7 against 251.5 in
// float32), 512 1.3-2.0% less, 128 the same: on devices whose memory outruns
// an H100's per SM (gpu_compat::memory_outruns_h100) the blocks are of 256
// threads.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>

#include "gpu_compat.h"
#include "relu_launch.h"

namespace {

using gpu_compat::opmath_t;

constexpr int kThreads = 1024;           // an H100's best (see above)
constexpr int kThreadsFastMemory = 256;  // an H200's
constexpr int kPerThread = 1;
constexpr int kPackBytes = 16;

// N elements of T moved by one access: a 16-byte pack (one vector
// instruction: 8 halves, 4 floats, 2 doubles) or a single element.
template <typename T, int N>
struct alignas(sizeof(T) * N) Unit {
  static constexpr int kSize = N;
  T v[N];
};
template <typename T>
using Pack = Unit<T, kPackBytes / sizeof(T)>;
template <typename T, bool kVectorized>
using unit_t = Unit<T, kVectorized ? kPackBytes / static_cast<int>(sizeof(T)) : 1>;

bool is_pack_aligned(const void *p) { return reinterpret_cast<std::uintptr_t>(p) % kPackBytes == 0; }

// One load of a unit; a pack as one 16-byte vector load.
template <typename U>
__device__ __forceinline__ U load_unit(const U *p) {
  if constexpr (sizeof(U) == kPackBytes) {
    const uint4 bits = *reinterpret_cast<const uint4 *>(p);
    U u;
    memcpy(&u, &bits, sizeof u);
    return u;
  } else {
    return *p;
  }
}

template <typename scalar_t>
__device__ __forceinline__ scalar_t relu_op(scalar_t x) {
  using acc_t = opmath_t<scalar_t>;
  // x < 0 is false for NaN, so NaN propagates like torch.relu.
  return static_cast<acc_t>(x) < acc_t(0) ? scalar_t(0) : x;
}

// Tile t covers units [t * kBlock * kUnits, (t + 1) * kBlock * kUnits); a
// thread's units are threadIdx.x + k * kBlock of its tile, all loaded before
// the first is used.
template <typename scalar_t, bool kVectorized, int kBlock, int kUnits, bool kOverlap = false>
__global__ void __launch_bounds__(kBlock)
    relu_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in, int64_t n) {
  gpu_compat::enter_grid<kOverlap>();  // launched with PDL if kOverlap: see gpu_compat::enter_grid
  using U = unit_t<scalar_t, kVectorized>;
  constexpr int64_t kTile = static_cast<int64_t>(kBlock) * kUnits;
  const int64_t units = n / U::kSize;
  const U *in_u = reinterpret_cast<const U *>(in);
  U *out_u = reinterpret_cast<U *>(out);
  for (int64_t first = blockIdx.x * kTile + threadIdx.x; first - threadIdx.x < units; first += gridDim.x * kTile) {
    const bool whole = first + (kUnits - 1) * kBlock < units;  // no bounds checks
    U u[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      if (whole || first + k * kBlock < units) {
        u[k] = load_unit(in_u + first + k * kBlock);
      }
    }
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      if (whole || first + k * kBlock < units) {
#pragma unroll
        for (int j = 0; j < U::kSize; ++j) {
          u[k].v[j] = relu_op(u[k].v[j]);
        }
        out_u[first + k * kBlock] = u[k];
      }
    }
  }
  if (kVectorized && blockIdx.x == 0) {  // the scalar tail: fewer than one pack
    const int64_t i = units * U::kSize + threadIdx.x;
    if (i < n) {
      out[i] = relu_op(in[i]);
    }
  }
}

template <typename scalar_t, bool kVectorized, int kBlock>
const char *launch_blocks(scalar_t *dst, const scalar_t *in, int64_t n, cudaStream_t stream) {
  constexpr int64_t kTile = static_cast<int64_t>(kBlock) * kPerThread;
  const int64_t units = n / unit_t<scalar_t, kVectorized>::kSize;
  const dim3 grid(static_cast<unsigned>(std::clamp<int64_t>((units + kTile - 1) / kTile, 1, INT_MAX)));
  constexpr bool kOverlap = gpu_compat::overlaps_launches(kTile * sizeof(unit_t<scalar_t, kVectorized>));
  return gpu_compat::launch<kOverlap, relu_kernel<scalar_t, kVectorized, kBlock, kPerThread, kOverlap>>(
      grid, kBlock, stream, dst, in, n);
}

template <typename scalar_t, bool kVectorized>
const char *launch_kernel(scalar_t *dst, const scalar_t *in, int64_t n, cudaStream_t stream) {
  if (gpu_compat::memory_outruns_h100()) {
    return launch_blocks<scalar_t, kVectorized, kThreadsFastMemory>(dst, in, n, stream);
  }
  return launch_blocks<scalar_t, kVectorized, kThreads>(dst, in, n, stream);
}

template <typename scalar_t>
const char *launch(scalar_t *dst, const scalar_t *in, int64_t n, cudaStream_t stream) {
  if (is_pack_aligned(in) && is_pack_aligned(dst)) {
    return launch_kernel<scalar_t, true>(dst, in, n, stream);
  }
  return launch_kernel<scalar_t, false>(dst, in, n, stream);
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
