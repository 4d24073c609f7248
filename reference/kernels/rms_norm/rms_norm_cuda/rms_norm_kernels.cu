// RMS norm device code (CUDA and HIP).
//
// Memory-bound: one read of the input, one write of the output (the weight,
// d elements, stays in L2/L1: its loads ask L2 to keep it). One block per
// row, as many blocks as rows (a grid-stride loop over rows keeps any count
// correct). Each thread loads its kUnits (4) units of the row, 16-byte
// packs (8 halves / 4 floats) coalesced across the warp (unit threadIdx.x +
// k * blockDim.x), and the matching weight units into registers, all loads
// issued before the first use; sums
// the squares in float32; a warp-shuffle reduction per warp, then every warp
// adds the warps' partial sums from shared memory (one barrier per row, the
// partial sums double-buffered so the next row needs no second barrier);
// then scales the row it holds in registers and stores it. One pass: nothing
// is re-read. blockDim.x is the row's units / 4 in whole warps, at most 1024;
// rows longer than 4096 units (bfloat16 d > 32768) take the two-pass form
// (sum, then re-read from L2 and scale). Packed access needs d to be a
// multiple of the pack size and 16-byte aligned pointers; otherwise the same
// kernels run with scalar accesses. Measured on an H100
// (reference/kernels/tests/roofline_probe.py, issue #32): 98-100% of the
// device-to-device copy bandwidth at 16384 x 8192; the same kernel with 2
// or 8 units per thread within 1%; a persistent grid of resident blocks 88-93%;
// the earlier two-pass kernel 88-91%. On devices whose memory outruns an
// H100's per SM (an H200) packed rows take Inductor's two-loop form instead
// (rms_norm_two_loop_kernel).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gpu_compat.h"
#include "rms_norm_launch.h"

namespace {

using gpu_compat::opmath_t;

constexpr int kWarpSize = 32;
constexpr int kMaxThreads = 1024;
constexpr int kMaxWarps = kMaxThreads / kWarpSize;
constexpr int kUnitsPerThread = 4;
constexpr int kPackBytes = 16;
// The two-loop kernel's blocks (Inductor's for rms_norm at 16384 x 8192, 16
// warps) and elements per thread and chunk (its 8192-element chunk over
// those threads: 2 packs in 16 bits, 4 in float32).
constexpr int kTwoLoopThreads = 512;
constexpr int kTwoLoopElements = 16;
// Its blocks resident per SM, as Triton's registers allow Inductor's (40 a
// thread in float32: 3 blocks; 32 in 16 bits: 4): the launch bounds' minimum,
// so that nvcc does not spend more registers (48 in float32 without it:
// 2 blocks).
// The kernel's own default, 0, is no minimum: nvcc's own choice. A minimum
// of 1 is not the same: nvcc then gave the 16-bit kernel 40-48 registers,
// not 30-32, and 3 blocks ran instead of 4, at 136-177 us against 128 (impls
// 625 and 626 as built for roofline-h200-2026-11-28e-probe29a.log, with that
// minimum). HIP's second launch bound means something else (warps per
// execution unit): there, only the threads.
template <typename scalar_t>
constexpr int kTwoLoopBlocksPerSm = sizeof(scalar_t) == 4 ? 3 : 4;
#if defined(__HIPCC__)
#define RMS_NORM_TWO_LOOP_BOUNDS(min_blocks) __launch_bounds__(kTwoLoopThreads)
#else
#define RMS_NORM_TWO_LOOP_BOUNDS(min_blocks) __launch_bounds__(kTwoLoopThreads, min_blocks)
#endif

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

// A unit's bits as loaded: a pack as uint4 (one 16-byte vector load), an
// element as itself. The one-pass kernel issues all of a thread's loads in
// this form, with no bounds check around them, before unpacking any: with
// each pack unpacked into 16-bit elements inside its bounds check, every
// load's result was needed before the next load could issue, and the loads
// went one at a time (bfloat16 at 88% of the copy bandwidth, not 98%).
template <typename U>
using raw_t = std::conditional_t<sizeof(U) == kPackBytes, uint4, U>;

template <typename U>
__device__ __forceinline__ raw_t<U> load_raw(const U *p) {
  return *reinterpret_cast<const raw_t<U> *>(p);
}

template <typename U>
__device__ __forceinline__ U unpack(const raw_t<U> &bits) {
  U u;
  memcpy(&u, &bits, sizeof u);
  return u;
}

// A pack's load with cache eviction hints. kL2Keep asks L2 to keep the line
// (evict_last): the one-pass kernel's weight loads, as every row reads the
// weight again while the rows stream through L2 once (on an H100 this took
// rms_norm at 16384 x 8192 from 181.7 to 180.9 us in 16-bit, roofline_probe.py
// impl 220 against 0, issue #32; `kcheck bench`, five runs: 181.2 -> 180.5
// us; float32 unchanged). kKeep and kStream ask L1 and L2 both to keep the
// line (evict_last, read again soon) or to drop it first (evict_first, read
// for the last time): the two-loop kernel's loads, as Triton issues them for
// Inductor's rms_norm (see rms_norm_two_loop_kernel). CUDA sm_80+ only
// (createpolicy); elsewhere a plain load.
enum class CacheHint { kL2Keep, kKeep, kStream };

template <CacheHint kHint, typename U>
__device__ __forceinline__ raw_t<U> load_raw_hinted(const U *p) {
#if !defined(__HIPCC__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(U) == kPackBytes) {
    uint64_t policy;
    uint4 v;
    if constexpr (kHint == CacheHint::kStream) {
      asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    } else {
      asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    }
#define RMS_NORM_LOAD_HINTED(L1)                                                \
  asm volatile("ld.global" L1 ".L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;" \
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)                     \
               : "l"(p), "l"(policy))
    if constexpr (kHint == CacheHint::kL2Keep) {
      RMS_NORM_LOAD_HINTED("");
    } else if constexpr (kHint == CacheHint::kKeep) {
      RMS_NORM_LOAD_HINTED(".L1::evict_last");
    } else {
      RMS_NORM_LOAD_HINTED(".L1::evict_first");
    }
#undef RMS_NORM_LOAD_HINTED
    return v;
  }
#endif
  return load_raw(p);
}

// One load of a unit.
template <typename U>
__device__ __forceinline__ U load_unit(const U *p) {
  return unpack<U>(load_raw(p));
}

__device__ __forceinline__ float reciprocal_sqrt(float x) { return rsqrtf(x); }
__device__ __forceinline__ double reciprocal_sqrt(double x) { return rsqrt(x); }

// sum plus the squares of a unit's elements, in acc_t (float for 16-bit types).
template <typename acc_t, typename U>
__device__ __forceinline__ acc_t add_squares(acc_t sum, const U &x) {
#pragma unroll
  for (int j = 0; j < U::kSize; ++j) {
    const acc_t v = static_cast<acc_t>(x.v[j]);
    sum += v * v;
  }
  return sum;
}

// x * scale * w elementwise, computed in acc_t and rounded once.
template <typename acc_t, typename U>
__device__ __forceinline__ U scaled(U x, const U w, acc_t scale) {
  using scalar_t = std::remove_reference_t<decltype(x.v[0])>;
#pragma unroll
  for (int j = 0; j < U::kSize; ++j) {
    x.v[j] = static_cast<scalar_t>(static_cast<acc_t>(x.v[j]) * scale * static_cast<acc_t>(w.v[j]));
  }
  return x;
}

template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  }
  return v;
}

// block_sum in two halves, for a caller with work to issue in between:
// each warp's sum into partial[warp], then the barrier; after it, the
// warps' sums added, returned to every thread.
template <typename T>
__device__ __forceinline__ void publish_warp_sum(T v, T *partial) {
  v = warp_sum(v);
  if (threadIdx.x % kWarpSize == 0) {
    partial[threadIdx.x / kWarpSize] = v;
  }
  __syncthreads();
}

template <typename T>
__device__ __forceinline__ T gathered_sum(const T *partial) {
  const int lane = threadIdx.x % kWarpSize;
  return warp_sum(lane < static_cast<int>(blockDim.x / kWarpSize) ? partial[lane] : T(0));
}

// Sum over the block (blockDim.x a multiple of 32), returned to every thread.
// `partial` holds one value per warp; callers alternate between two such
// arrays from one call to the next, so that a warp that runs ahead into the
// next call cannot overwrite a value another warp has still to read.
template <typename T>
__device__ __forceinline__ T block_sum(T v, T *partial) {
  const int warps = blockDim.x / kWarpSize;
  if (warps == 1) {
    return warp_sum(v);
  }
  publish_warp_sum(v, partial);
  return gathered_sum(partial);
}

// One pass: the row's units threadIdx.x + k * blockDim.x (k < kUnits; the
// row's width <= blockDim.x * kUnits) stay in registers between the sum and
// the store.
template <typename scalar_t, bool kVectorized, int kUnits, bool kOverlap = false>
__global__ void __launch_bounds__(kMaxThreads)
    rms_norm_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in, const scalar_t *__restrict__ weight,
                    int64_t rows, int d, opmath_t<scalar_t> eps) {
  gpu_compat::enter_grid<kOverlap>();  // launched with PDL if kOverlap: see gpu_compat::enter_grid
  using acc_t = opmath_t<scalar_t>;
  using U = unit_t<scalar_t, kVectorized>;
  const int width = d / U::kSize;
  const U *w_u = reinterpret_cast<const U *>(weight);
  __shared__ acc_t partial[2][kMaxWarps];

  int parity = 0;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x, parity ^= 1) {
    const U *x_u = reinterpret_cast<const U *>(in + row * d);
    U *o_u = reinterpret_cast<U *>(out + row * d);
    // Every thread issues all its loads, unconditionally (a unit past the row
    // reads the row's last one again, never used), before any is unpacked.
    raw_t<U> x_bits[kUnits];
    raw_t<U> w_bits[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = min(static_cast<int>(threadIdx.x + k * blockDim.x), width - 1);
      x_bits[k] = load_raw(x_u + i);
      w_bits[k] = load_raw_hinted<CacheHint::kL2Keep>(w_u + i);
    }
    acc_t sum_sq = 0;
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      if (threadIdx.x + k * blockDim.x < width) {
        sum_sq = add_squares(sum_sq, unpack<U>(x_bits[k]));
      }
    }
    sum_sq = block_sum(sum_sq, partial[parity]);
    const acc_t scale = reciprocal_sqrt(sum_sq / static_cast<acc_t>(d) + eps);
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = threadIdx.x + k * blockDim.x;
      if (i < width) {
        o_u[i] = scaled(unpack<U>(x_bits[k]), unpack<U>(w_bits[k]), scale);
      }
    }
  }
}

// Two passes, for rows too long for registers: the sum, then the row read
// again (from L2, mostly) and scaled.
template <typename scalar_t, bool kVectorized, bool kOverlap = false>
__global__ void __launch_bounds__(kMaxThreads)
    rms_norm_two_pass_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in,
                             const scalar_t *__restrict__ weight, int64_t rows, int d, opmath_t<scalar_t> eps) {
  gpu_compat::enter_grid<kOverlap>();  // launched with PDL if kOverlap: see gpu_compat::enter_grid
  using acc_t = opmath_t<scalar_t>;
  using U = unit_t<scalar_t, kVectorized>;
  const int width = d / U::kSize;
  const U *w_u = reinterpret_cast<const U *>(weight);
  __shared__ acc_t partial[2][kMaxWarps];

  int parity = 0;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x, parity ^= 1) {
    const U *x_u = reinterpret_cast<const U *>(in + row * d);
    U *o_u = reinterpret_cast<U *>(out + row * d);
    acc_t sum_sq = 0;
    for (int i = threadIdx.x; i < width; i += blockDim.x) {
      sum_sq = add_squares(sum_sq, load_unit(x_u + i));
    }
    sum_sq = block_sum(sum_sq, partial[parity]);
    const acc_t scale = reciprocal_sqrt(sum_sq / static_cast<acc_t>(d) + eps);
    for (int i = threadIdx.x; i < width; i += blockDim.x) {
      const U x = load_unit(x_u + i);
      o_u[i] = scaled(x, w_u[i], scale);
    }
  }
}

// A pack's index clamped into the row (past it: its last pack, loaded and
// never used), unless the row is whole chunks and no index passes it.
template <bool kWholeChunks>
__device__ __forceinline__ int within_row(unsigned index, int width) {
  return kWholeChunks ? static_cast<int>(index) : min(static_cast<int>(index), width - 1);
}

// Inductor's form, for devices whose memory outruns an H100's per SM
// (gpu_compat::memory_outruns_h100): two loops over the row in chunks of
// blockDim.x * kUnits packs, kUnits packs per thread issued before any is
// used. The first loop sums, its loads asking L1 and L2 to keep the row
// (CacheHint::kKeep); the second reads the row again (from L2: the rows in
// flight are a few MB) for the last time (kStream) with the weight (kKeep),
// scales and stores. On an H200 (2026-11-28, bench/results/
// roofline-h200-2026-11-28b-probe20b.log, 16384 x 8192; impl 621 there) this
// ran 128.0 us in 16-bit and 252.4 in float32 against 131.9 and 255.1 for
// the one-pass kernel above, Inductor 127.4 and 252.0: the one-pass kernel's
// row held in registers across the block's sum leaves fewer loads in flight
// than re-reading it from L2. Packs only (the launcher's vectorized case),
// at most INT_MAX rows (one block each). kWholeChunks: the row is whole
// chunks (d a multiple of blockDim.x * kUnits packs), so no load is clamped
// and no store checked, and the hot path has no branch; on an H200 this ran
// bfloat16 at 127.5 us against 127.9-128.0 with the checks (Inductor 127.2),
// float16 at 127.8 against 127.7, float32 at 256.7-256.8 against 252.5-252.6
// (bench/results/roofline-h200-2026-11-28d-probe28b.log, impl 625 against
// 626, this kernel with and without, two repeats each). float32 took 48
// registers here, 2 blocks per SM; with kMinBlocksPerSm (the launcher's
// kTwoLoopBlocksPerSm: 3 in float32, 40 registers as Triton's) and a sum per
// pack slot it ran 252.9 us, as Inductor (252.9), against 253.8-253.9 for the
// launcher with the checks; 16-bit 127.9 and 128.2 against 128.1 and 128.3
// (roofline-h200-2026-11-28e-probe29a.log, impl 642 against 1, two repeats).
// The checks' form keeps one sum and no minimum: with a sum per slot and a
// minimum of 1 (impl 626 as built there) or 3 (641) it ran 255.1-255.5 us in
// float32 against 253.8-253.9; the two were not tried apart.
template <typename scalar_t, int kUnits, bool kWholeChunks = false, int kMinBlocksPerSm = 0, bool kOverlap = false>
__global__ void RMS_NORM_TWO_LOOP_BOUNDS(kMinBlocksPerSm)
    rms_norm_two_loop_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in,
                             const scalar_t *__restrict__ weight, int d, opmath_t<scalar_t> inv_d,
                             opmath_t<scalar_t> eps) {
  gpu_compat::enter_grid<kOverlap>();  // launched with PDL if kOverlap: see gpu_compat::enter_grid
  using acc_t = opmath_t<scalar_t>;
  using U = Pack<scalar_t>;
  const int width = d / U::kSize;
  const int chunk = blockDim.x * kUnits;
  const U *w_u = reinterpret_cast<const U *>(weight);
  __shared__ acc_t partial[kMaxWarps];
  // One row per block, no loop over rows (the launcher's grid has a block
  // per row): a loop over rows put the row's index and pointers in vector
  // registers instead of uniform ones, and the kernel ran 0.6-1.6% slower on
  // an H200 (roofline-h200-2026-11-28b-probe21a.log: 257.8 us in float32
  // against 253.7; one row per block ran as 621, probe22a). One sum per block
  // (publish_warp_sum, then gathered_sum after the first chunk's loads), so
  // one `partial` array, written once (no next row to alternate with).
  const int64_t row = blockIdx.x;
  const U *x_u = reinterpret_cast<const U *>(in + row * d);
  U *o_u = reinterpret_cast<U *>(out + row * d);
  // Rows of whole chunks: one sum per pack slot, kUnits short chains of adds
  // instead of one long one; other rows: one sum (sums[0]), as measured.
  acc_t sums[kUnits] = {};
  for (int base = 0; base < width; base += chunk) {
    raw_t<U> x_bits[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {  // past the row: its last pack again, never used
      x_bits[k] =
          load_raw_hinted<CacheHint::kKeep>(x_u + within_row<kWholeChunks>(base + threadIdx.x + k * blockDim.x, width));
    }
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      if (kWholeChunks || base + threadIdx.x + k * blockDim.x < width) {
        sums[kWholeChunks ? k : 0] = add_squares(sums[kWholeChunks ? k : 0], unpack<U>(x_bits[k]));
      }
    }
  }
  acc_t sum_sq = sums[0];
  if constexpr (kWholeChunks) {
#pragma unroll
    for (int k = 1; k < kUnits; ++k) {
      sum_sq += sums[k];
    }
  }
  publish_warp_sum(sum_sq, partial);
  acc_t scale = 0;
  for (int base = 0; base < width; base += chunk) {
    raw_t<U> x_bits[kUnits];
    raw_t<U> w_bits[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = within_row<kWholeChunks>(base + threadIdx.x + k * blockDim.x, width);
      x_bits[k] = load_raw_hinted<CacheHint::kStream>(x_u + i);
      w_bits[k] = load_raw_hinted<CacheHint::kKeep>(w_u + i);
    }
    // The block's sum and the scale after the first chunk's loads, which do
    // not need them, and with no division (1/d from the launcher): with
    // block_sum and a division before the loop, the loads came ~50
    // instructions after the barrier, behind the division's slow path, where
    // Triton issues them at once (machine code compared, nvdisasm, issue #32).
    // On an H200 this ran float16 at 127.5 us and bfloat16 at 127.3 against
    // 127.7 and 127.5 before, float32 at 251.9-252.0 against 252.0-252.1
    // (Inductor 127.2-127.8 and 251.8; bench/results/
    // roofline-h200-2026-11-28f-probe30a.log, impl 0 against 1, 3 repeats).
    // The same for every thread of the block (gathered_sum's shuffles take
    // the whole warp); the loop runs at least once whenever it stores.
    if (base == 0) {
      scale = reciprocal_sqrt(gathered_sum(partial) * inv_d + eps);
    }
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = base + threadIdx.x + k * blockDim.x;
      if (kWholeChunks || i < width) {
        o_u[i] = scaled(unpack<U>(x_bits[k]), unpack<U>(w_bits[k]), scale);
      }
    }
  }
}

// Threads for `width` units at `units` each: whole warps, at least one.
int threads_for(int width, int units) {
  return std::max(kWarpSize, ((width + units - 1) / units + kWarpSize - 1) / kWarpSize * kWarpSize);
}

// The kernel for the rows' shape; kOverlap: see gpu_compat::enter_grid.
template <typename scalar_t, bool kVectorized, bool kOverlap>
const char *launch_rows(scalar_t *dst, const scalar_t *in, const scalar_t *w, int64_t rows, int d,
                        opmath_t<scalar_t> eps, cudaStream_t stream) {
  const int width = d / unit_t<scalar_t, kVectorized>::kSize;
  // One block per row (at most INT_MAX blocks; the kernels loop over rows past that).
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>(rows, INT_MAX)));
  if constexpr (kVectorized && sizeof(scalar_t) <= 4) {
    if (rows <= INT_MAX && gpu_compat::memory_outruns_h100()) {
      constexpr int kUnits = kTwoLoopElements / Pack<scalar_t>::kSize;
      constexpr int kBlocks = kTwoLoopBlocksPerSm<scalar_t>;
      const opmath_t<scalar_t> inv_d = static_cast<opmath_t<scalar_t>>(1.0 / d);
      const int threads = std::min(kTwoLoopThreads, threads_for(width, kUnits));
      if (width % (threads * kUnits) == 0) {
        return gpu_compat::launch<kOverlap, rms_norm_two_loop_kernel<scalar_t, kUnits, true, kBlocks, kOverlap>>(
            grid, threads, stream, dst, in, w, d, inv_d, eps);
      }
      return gpu_compat::launch<kOverlap, rms_norm_two_loop_kernel<scalar_t, kUnits, false, 0, kOverlap>>(
          grid, threads, stream, dst, in, w, d, inv_d, eps);
    }
  }
  if (width <= kMaxThreads * kUnitsPerThread) {
    return gpu_compat::launch<kOverlap, rms_norm_kernel<scalar_t, kVectorized, kUnitsPerThread, kOverlap>>(
        grid, threads_for(width, kUnitsPerThread), stream, dst, in, w, rows, d, eps);
  }
  return gpu_compat::launch<kOverlap, rms_norm_two_pass_kernel<scalar_t, kVectorized, kOverlap>>(
      grid, kMaxThreads, stream, dst, in, w, rows, d, eps);
}

// A block reads a row at a time: PDL for rows of 4 KB and more (gpu_compat::overlaps_launches).
template <typename scalar_t, bool kVectorized>
const char *launch_kernel(scalar_t *dst, const scalar_t *in, const scalar_t *w, int64_t rows, int d,
                          opmath_t<scalar_t> eps, cudaStream_t stream) {
  if (gpu_compat::overlaps_launches(static_cast<long long>(d) * sizeof(scalar_t))) {
    return launch_rows<scalar_t, kVectorized, true>(dst, in, w, rows, d, eps, stream);
  }
  return launch_rows<scalar_t, kVectorized, false>(dst, in, w, rows, d, eps, stream);
}

template <typename scalar_t>
const char *launch(scalar_t *dst, const scalar_t *in, const scalar_t *w, int64_t rows, int d, double epsilon,
                   cudaStream_t stream) {
  using acc_t = opmath_t<scalar_t>;
  const acc_t eps = static_cast<acc_t>(epsilon);
  if (d % Pack<scalar_t>::kSize == 0 && is_pack_aligned(in) && is_pack_aligned(w) && is_pack_aligned(dst)) {
    return launch_kernel<scalar_t, true>(dst, in, w, rows, d, eps, stream);
  }
  return launch_kernel<scalar_t, false>(dst, in, w, rows, d, eps, stream);
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
