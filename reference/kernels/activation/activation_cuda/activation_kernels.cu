// Activation device code (CUDA and HIP).
//
// Memory-bound kernels, so the layout of the accesses is the whole design.
// Each thread moves one unit of the output per tile: a 16-byte pack (8 halves
// / 4 floats) for the elementwise ops, 8 or 16 bytes for the gated ops, which
// load two, one from each half of the input row (gated_shape says which; on
// a device whose memory outruns an H100's per SM, gated_shape_fast_memory,
// and the elementwise ops take one block per tile in blocks of 128 (Triton's
// shape) or, in 16 bits at one pack per thread, 256, exact GELU in 16 bits two
// packs per thread, float32 up to kFloatTwoPacksUpTo packs PyTorch's two
// (above it float32 GELU with a 32-bit index):
// gpu_compat::memory_outruns_h100, elementwise()).
// It converts to the op-math type (float for float32/float16/bfloat16) and
// rounds once on store; accesses coalesced across the warp; blocks of
// kThreads threads (gated: gated_shape's), one tile of threads * units per
// thread each, as many blocks as tiles, so the hardware keeps every SM full
// of short blocks (a grid-stride loop over tiles keeps any size correct).
// Measured on an H100 (issue #32; `kcheck bench`, five runs, bench/RESULTS.md):
// this shape moves 100% of the device-to-device copy bandwidth (the gated
// ops, which read twice what they write, 101.5-102.9%); in the probe
// (reference/kernels/tests/roofline_probe.py) more packs per thread
// (2-8, all loads issued first) or a persistent grid of resident blocks moved
// 87-99%. The elementwise ops' fewer than 8 elements past the last whole pack
// are done by block 0 (with one block per tile, the last block) with scalar
// accesses; a pointer not aligned to the
// unit, or (gated ops) d not a multiple of the unit's elements, makes the
// whole tensor take the scalar form of the same kernel.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "../activation_common/activation_functors.h"
#include "activation_launch.h"
#include "gpu_compat.h"

namespace {

using gpu_compat::opmath_t;

constexpr int kThreads = 256;            // elementwise, an H100's best
constexpr int kThreadsFastMemory = 128;  // elementwise but 16-bit one-pack, an H200's (see elementwise())
// elementwise in 16 bits at one pack per thread, an H200's: 4 KB a block,
// so launched with PDL (see elementwise())
constexpr int kThreadsHalfOnePackFastMemory = 256;
constexpr int kPerThread = 1;       // elementwise: packs per thread and tile
constexpr int kGatedPerThread = 1;  // gated: output units per thread and tile (two input units each)
constexpr int kPackBytes = 16;

// N elements of T moved by one access: a 16-byte pack (one vector
// instruction: 8 halves, 4 floats, 2 doubles), 8 bytes, or a single element.
template <typename T, int N>
struct alignas(sizeof(T) * N) Unit {
  static constexpr int kSize = N;
  T v[N];
};
template <typename T, int kBytes>
struct UnitOfBytes {
  static_assert(kBytes >= static_cast<int>(sizeof(T)) && kBytes % sizeof(T) == 0, "a unit holds whole elements");
  using type = Unit<T, kBytes / static_cast<int>(sizeof(T))>;
};
template <typename T, int kBytes>
using unit_t = typename UnitOfBytes<T, kBytes>::type;
template <typename T>
using Pack = unit_t<T, kPackBytes>;

// Exact GELU for float16/bfloat16 outputs. erff (two polynomials, selects
// and a branch) made gelu in 16 bits compute-bound on an H100: 381-385 µs,
// 93% of copy, against 356 µs with this form, 100%
// (bench/results/roofline-h100-2026-11-28-probe{8,9}.log). Here
// gelu(x) = x * Phi(x) = max(x, 0) - |x| * Q(|x|), Q(a) = 1 - Phi(a) =
// erfc(a / sqrt(2)) / 2 evaluated as 2^P(a), P a degree-10 polynomial fitted
// to log2 Q on [0, 14.2] (weighted minimax, reference/kernels/tests/
// gelu_tail_fit.py): |error of Phi| <= 3.2e-8, about erff's own (2 ulp of
// erf near -1 are 6e-8 of Phi), and Q's relative error <= 6e-6 for a <= 4,
// far under a 16-bit ulp (2^-11, 2^-8). Past 14.2,
// 2^P(14.2) = 2^-634 flushes to 0, so gelu(x) = max(x, 0) there. float32
// and float64 keep GeluErf: P is not accurate to their ulp, and their gelu
// moves 100% of copy anyway.
struct GeluErfNarrow {
  __device__ float operator()(float x) const {
    const float abs_x = fabsf(x);
    const float a = abs_x > 14.2f ? 14.2f : abs_x;  // not fminf: a NaN stays NaN
    float p = -3.365314072e-08f;
    p = fmaf(p, a, 1.038588607e-06f);
    p = fmaf(p, a, -1.295306629e-05f);
    p = fmaf(p, a, 8.673001867e-05f);
    p = fmaf(p, a, -3.081450704e-04f);
    p = fmaf(p, a, 4.367574002e-05f);
    p = fmaf(p, a, 6.911033764e-03f);
    p = fmaf(p, a, -5.242718756e-02f);
    p = fmaf(p, a, -4.592227340e-01f);
    p = fmaf(p, a, -1.151104212e+00f);
    p = fmaf(p, a, -1.0f);
    // -|x|, not -a: at x = -inf the product is -inf * 0 = NaN, as Torch's
    // gelu gives (and this file's float32 GeluErf), not 0.
    return fmaf(-abs_x, gpu_compat::exp2_approx(p), fmaxf(x, 0.0f));
  }
};

struct GeluAndMulNarrow {
  __device__ float operator()(float a, float b) const { return GeluErfNarrow()(a) * b; }
};

// The tanh GELUs for float16/bfloat16 outputs, without tanhf:
// 0.5 x (1 + tanh(u)) = x / (1 + e^(-2u)) = x * sigmoid(2u), exactly, so
// there is no cancellation in 1 + tanh(u) for x < 0 either; e^(-2u) is one
// ex2.approx and the reciprocal one rcp.approx (silu's x / (1 + e^-x)
// shape; silu moves 100.6% of copy). Errors: over the 16-bit inputs, ex2's
// argument -2 log2(e) u, as float32 computes u and the product, is off by
// at most 2^-15.8 while e^(-2u) is finite, so e^(-2u) and the result are
// off by a relative 2^-16.3 plus ex2's and rcp's own 2^-22, far under a
// 16-bit ulp (2^-11, 2^-8). Where the argument passes 128 (x <= -10.0625)
// ex2 gives +inf and the result is -0, against an exact |gelu| <= 2.9e-38
// (bfloat16's smallest normals and denormals).
// reference/kernels/tests/gelu_tanh_check.py measures both, and counts the
// 16-bit results that differ from the exact ones. At x = -inf,
// -inf * 0 = NaN, as Torch's 0.5 x (1 + tanh(u)) gives; at x = +inf, +inf.
// float32 and float64 keep tanh: their tanh GELUs move 100.4-100.5% of copy.
__device__ __forceinline__ float x_times_sigmoid_2u(float x, float u) {
  const float e = gpu_compat::exp2_approx(-2.8853900817779268f * u);  // e^(-2u) = 2^(-2 log2(e) u)
  return x * gpu_compat::reciprocal_approx(1.0f + e);
}

struct GeluTanhNarrow {  // u = sqrt(2/pi) (x + 0.044715 x^3), as activation::GeluTanh
  __device__ float operator()(float x) const {
    return x_times_sigmoid_2u(x, 0.7978845608028654f * (x + 0.044715f * x * x * x));
  }
};

struct GeluFastNarrow {  // u = x 0.7978845608 (1 + 0.044715 x^2), as activation::GeluFast
  __device__ float operator()(float x) const {
    return x_times_sigmoid_2u(x, x * 0.7978845608f * (1.0f + 0.044715f * x * x));
  }
};

struct GeluTanhAndMulNarrow {
  __device__ float operator()(float a, float b) const { return GeluTanhNarrow()(a) * b; }
};

// silu and gelu_quick for float16/bfloat16 outputs, without expf and the
// IEEE division: x * sigmoid(c x) = x / (1 + e^(-c x)), e^(-c x) one
// ex2.approx and the reciprocal one rcp.approx without .ftz (x_times_sigmoid_2u
// flushes): where 1 + e^(-c x) passes 2^126 its reciprocal is a float32
// denormal, and x times it a normal bfloat16 (silu at x in (-88.7, -87.3]),
// as Torch's float32 x / (1 + e^(-c x)) gives; past ex2's overflow (silu
// x <= -88.7, gelu_quick x <= -52.1) the result is -0, as Torch's is. On an
// H200 the float32 forms made silu in 16 bits compute-bound: 272.7-279.1 µs
// against 252.1-253.1 for a plain copy of the same bytes and Inductor's
// 256.9-257.1 (bench/results/roofline-h200-2026-11-28-probe17c.log,
// probe18c). Errors: over the 16-bit inputs, the float32 constant c log2(e)
// and the product -c log2(e) x are each off by a relative 2^-24, so the
// exponent is off by at most 2 * 128 * 2^-24 while e^(-c x) is finite, and
// the result by a relative 2^-16 plus ex2's and rcp's own 2^-22, far under
// a 16-bit ulp (2^-11, 2^-8). reference/kernels/tests/sigmoid_check.py
// counts the 16-bit results that differ from the exact ones rounded once:
// in its float32 model about as many as for x / (1 + e^(-c x)) in float32
// (3-4 float16 inputs off by 1 ulp; 17-20 bfloat16 ones, all but one past
// e^(-c x)'s overflow).
__device__ __forceinline__ float x_times_sigmoid(float x, float c_log2e) {
  return x * gpu_compat::reciprocal_approx<true>(1.0f + gpu_compat::exp2_approx(-c_log2e * x));
}

struct SiluNarrow {  // x * sigmoid(x), as activation::Silu
  __device__ float operator()(float x) const { return x_times_sigmoid(x, 1.4426950408889634f); }
};

struct GeluQuickNarrow {  // x * sigmoid(1.702 x), as activation::GeluQuick
  __device__ float operator()(float x) const { return x_times_sigmoid(x, 1.702f * 1.4426950408889634f); }
};

struct SiluAndMulNarrow {
  __device__ float operator()(float a, float b) const { return SiluNarrow()(a) * b; }
};

struct MulAndSiluNarrow {
  __device__ float operator()(float a, float b) const { return a * SiluNarrow()(b); }
};

// The functor a storage type computes `op` with: the GELU and silu ops take
// their narrow form for 16-bit types, everything else is `op` itself.
template <typename scalar_t, typename Op>
auto form_for(Op op) {
  constexpr bool kNarrow = sizeof(scalar_t) == 2;
  if constexpr (kNarrow && std::is_same_v<Op, activation::GeluErf>) {
    return GeluErfNarrow();
  } else if constexpr (kNarrow && std::is_same_v<Op, activation::GeluAndMul>) {
    return GeluAndMulNarrow();
  } else if constexpr (kNarrow && std::is_same_v<Op, activation::GeluTanh>) {
    return GeluTanhNarrow();
  } else if constexpr (kNarrow && std::is_same_v<Op, activation::GeluFast>) {
    return GeluFastNarrow();
  } else if constexpr (kNarrow && std::is_same_v<Op, activation::GeluTanhAndMul>) {
    return GeluTanhAndMulNarrow();
  } else if constexpr (kNarrow && std::is_same_v<Op, activation::Silu>) {
    return SiluNarrow();
  } else if constexpr (kNarrow && std::is_same_v<Op, activation::GeluQuick>) {
    return GeluQuickNarrow();
  } else if constexpr (kNarrow && std::is_same_v<Op, activation::SiluAndMul>) {
    return SiluAndMulNarrow();
  } else if constexpr (kNarrow && std::is_same_v<Op, activation::MulAndSilu>) {
    return MulAndSiluNarrow();
  } else {
    return op;
  }
}

bool is_aligned(const void *p, int bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

// One load of a unit: a pack as one 16-byte vector load, 8 bytes as one
// 8-byte load.
template <typename U>
__device__ __forceinline__ U load_unit(const U *p) {
  if constexpr (sizeof(U) == 16 || sizeof(U) == 8) {
    using Bits = std::conditional_t<sizeof(U) == 16, uint4, uint2>;
    const Bits bits = *reinterpret_cast<const Bits *>(p);
    U u;
    memcpy(&u, &bits, sizeof u);
    return u;
  } else {
    return *p;
  }
}

// Which blocks of the elementwise kernel without a loop over tiles skip the
// bounds tests. kAllButLastBlock: every block but the last (the last takes
// the tested path). kWholeTile: PyTorch's vectorized kernel's test, every
// block whose tile lies wholly below the end, the last one's too. On an
// H200 (bench/results/roofline-h200-2026-11-29-probe31g.log) two packs of
// float32 silu, gelu_tanh and gelu_quick per thread at 256 x 8192 ran 0.1 us
// (2%) behind a kernel with no tests at all with the last block tested
// (impl 39), level with it under PyTorch's test (impl 44).
// kWholeTileInterleaved: kWholeTile, the untested tiles' math element by
// element across the packs (element j of every pack before element j + 1):
// for float32 GELU (erf) in two packs, whose second load ptxas (CUDA 13.0,
// sm_90) issues after the first pack's math otherwise (one load in flight per
// thread; reference/kernels/tests/sass_load_order.py). In 33fff69, which
// interleaved every op, gelu_quick ran 0.15 us behind impl 36 (probe31h) in
// 35 registers (12 blocks of 128 per SM instead of 16: two waves at 256 x
// 8192); in kWholeTile it takes 32.
enum class TileTest { kAllButLastBlock, kWholeTile, kWholeTileInterleaved };

// out[i] = act(in[i]) for i < n. Tile t covers units
// [t * kBlock * kUnits, (t + 1) * kBlock * kUnits); a thread's units are
// threadIdx.x + k * kBlock of its tile, all loaded before the first is used.
// Units of kUnitBytes (sizeof(scalar_t): one element, the form for any
// pointer). kGridStride: block b moves tiles b, b + gridDim.x, ...; without
// it block b moves tile b only, and the launcher gives one block per tile:
// kTileTest says which blocks skip the bounds tests (see TileTest).
// IdxT: the unit index's type (and the scalar tail's element index);
// uint32_t (n < 2^31, one block per tile) for float32 GELU (erf) above
// kFloatTwoPacksUpTo, see elementwise(). kOverlap stays the last template
// argument: tests/sass_pdl.py reads it there.
template <typename scalar_t, typename Act, int kUnitBytes, int kBlock, int kUnits, bool kGridStride = true,
          TileTest kTileTest = TileTest::kAllButLastBlock, typename IdxT = int64_t, bool kOverlap = false>
__global__ void __launch_bounds__(kBlock)
    elementwise_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in, int64_t n, Act act) {
  static_assert(std::is_same_v<IdxT, int64_t> || !kGridStride, "a 32-bit index only without the loop over tiles");
  gpu_compat::enter_grid<kOverlap>();  // launched with PDL if kOverlap: see gpu_compat::enter_grid
  using acc_t = opmath_t<scalar_t>;
  using U = unit_t<scalar_t, kUnitBytes>;
  constexpr int64_t kTile = static_cast<int64_t>(kBlock) * kUnits;
  const IdxT units = static_cast<IdxT>(n) / U::kSize;
  const U *in_u = reinterpret_cast<const U *>(in);
  U *out_u = reinterpret_cast<U *>(out);
  // Tile `first` - threadIdx.x; `whole`: every unit of it is below `units`.
  const auto move_tile = [&](IdxT first, bool whole) {
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
          u[k].v[j] = static_cast<scalar_t>(act(static_cast<acc_t>(u[k].v[j])));
        }
        out_u[first + k * kBlock] = u[k];
      }
    }
  };
  const auto move_whole_tile_interleaved = [&](IdxT first) {
    U u[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      u[k] = load_unit(in_u + first + k * kBlock);
    }
#pragma unroll
    for (int j = 0; j < U::kSize; ++j) {
#pragma unroll
      for (int k = 0; k < kUnits; ++k) {
        u[k].v[j] = static_cast<scalar_t>(act(static_cast<acc_t>(u[k].v[j])));
      }
    }
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      out_u[first + k * kBlock] = u[k];
    }
  };
  const auto scalar_tail = [&] {  // fewer than one unit past the last whole one
    const IdxT i = units * U::kSize + threadIdx.x;
    if (U::kSize > 1 && i < static_cast<IdxT>(n)) {
      out[i] = static_cast<scalar_t>(act(static_cast<acc_t>(in[i])));
    }
  };
  const IdxT start = static_cast<IdxT>(blockIdx.x) * static_cast<IdxT>(kTile) + threadIdx.x;
  if constexpr (kGridStride) {
    for (int64_t first = start; first - threadIdx.x < units; first += gridDim.x * kTile) {
      move_tile(first, first + (kUnits - 1) * kBlock < units);
    }
    if (blockIdx.x == 0) {
      scalar_tail();
    }
  } else if constexpr (kTileTest == TileTest::kAllButLastBlock) {
    if (blockIdx.x + 1 < gridDim.x) {
      move_tile(start, true);  // a whole tile: no bounds checks
    } else {
      move_tile(start, start + (kUnits - 1) * kBlock < units);
      scalar_tail();
    }
  } else {
    if ((blockIdx.x + int64_t{1}) * kTile <= static_cast<int64_t>(units)) {
      if constexpr (kTileTest == TileTest::kWholeTileInterleaved) {
        move_whole_tile_interleaved(start);
      } else {
        move_tile(start, true);
      }
    } else {
      move_tile(start, false);
    }
    if (blockIdx.x + 1 == gridDim.x) {
      scalar_tail();
    }
  }
}

// out[r, j] = gate(in[r, j], in[r, d + j]) for r < rows, j < d, with d
// counted in units of kUnitBytes (d_elems / kSize): output unit i of
// the flattened [rows, d] output reads input units i + (i / d) * d and that
// + d. IdxT is uint32_t when the input has fewer than 2^31 elements, so the
// row split is a 32-bit division.
template <typename scalar_t, typename Gate, typename IdxT, int kUnitBytes, int kBlock, int kUnits,
          bool kOverlap = false>
__global__ void __launch_bounds__(kBlock)
    gated_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in, IdxT rows, IdxT d, Gate gate) {
  gpu_compat::enter_grid<kOverlap>();  // launched with PDL if kOverlap: see gpu_compat::enter_grid
  using acc_t = opmath_t<scalar_t>;
  using U = unit_t<scalar_t, kUnitBytes>;
  constexpr IdxT kTile = static_cast<IdxT>(kBlock) * kUnits;
  const IdxT total = rows * d;
  const U *in_u = reinterpret_cast<const U *>(in);
  U *out_u = reinterpret_cast<U *>(out);
  // The loop tests the tile's start, so `first` stays below total + kTile
  // (no wrap-around of a 32-bit IdxT).
  for (IdxT first = static_cast<IdxT>(blockIdx.x) * kTile + threadIdx.x; first - threadIdx.x < total;
       first += static_cast<IdxT>(gridDim.x) * kTile) {
    const bool whole = first + (kUnits - 1) * kBlock < total;
    U a[kUnits];
    U b[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const IdxT i = first + k * kBlock;
      if (whole || i < total) {
        const IdxT a_idx = i + (i / d) * d;  // row * 2d + (i - row * d)
        // b first: with a loaded first, ptxas (CUDA 13.0, sm_90) issued
        // mul_and_silu's load of a only after part of silu(b)'s math in float16 (and
        // split the two loads in three other instantiations), one load in
        // flight per thread instead of two; on an H200 mul_and_silu float16
        // ran 202.0 us against silu_and_mul's 185.0
        // (bench/results/roofline-h200-2026-11-28-summary-activation.md), and
        // 184.7 in this order (roofline-h200-2026-11-28b-summary-activation.md,
        // five runs). In this order every instantiation but float64
        // gelu_and_mul issues both loads before any math
        // (reference/kernels/tests/sass_load_order.py).
        b[k] = load_unit(in_u + a_idx + d);
        a[k] = load_unit(in_u + a_idx);
      }
    }
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const IdxT i = first + k * kBlock;
      if (whole || i < total) {
#pragma unroll
        for (int j = 0; j < U::kSize; ++j) {
          b[k].v[j] = static_cast<scalar_t>(gate(static_cast<acc_t>(a[k].v[j]), static_cast<acc_t>(b[k].v[j])));
        }
        out_u[i] = b[k];
      }
    }
  }
}

// Blocks of kBlock threads for `units` units at kUnits per thread: one tile
// each (at most INT_MAX blocks; the kernels loop over tiles past that).
template <int kBlock, int kUnits>
dim3 grid_for(int64_t units) {
  constexpr int64_t kTile = static_cast<int64_t>(kBlock) * kUnits;
  return dim3(static_cast<unsigned>(std::clamp<int64_t>((units + kTile - 1) / kTile, 1, INT_MAX)));
}

// Whether grid_for gives every tile of `units` a block of its own.
template <int kBlock, int kUnits>
bool one_block_per_tile(int64_t units) {
  constexpr int64_t kTile = static_cast<int64_t>(kBlock) * kUnits;
  return (units + kTile - 1) / kTile <= INT_MAX;
}

// The packed kernel loops over tiles if kPackedGridStride (see
// elementwise_kernel; the caller checks one_block_per_tile otherwise); the
// scalar form, for pointers not aligned to a pack, always does.
// kTileTest: see TileTest. PackedIdxT: the packed kernel's index (see
// elementwise_kernel; uint32_t needs n < 2^31).
template <typename scalar_t, typename Act, int kBlock, int kUnits, bool kPackedGridStride,
          TileTest kTileTest = TileTest::kAllButLastBlock, typename PackedIdxT = int64_t>
const char *elementwise_in_blocks(scalar_t *dst, const scalar_t *in, int64_t n, Act act, cudaStream_t stream) {
  if (is_aligned(in, kPackBytes) && is_aligned(dst, kPackBytes)) {
    constexpr bool kOverlap = gpu_compat::overlaps_launches(kBlock * kUnits * kPackBytes);
    return gpu_compat::launch<kOverlap, elementwise_kernel<scalar_t, Act, kPackBytes, kBlock, kUnits, kPackedGridStride,
                                                           kTileTest, PackedIdxT, kOverlap>>(
        grid_for<kBlock, kUnits>(n / Pack<scalar_t>::kSize), kBlock, stream, dst, in, n, act);
  }
  constexpr bool kOverlap = gpu_compat::overlaps_launches(kBlock * kUnits * sizeof(scalar_t));
  return gpu_compat::launch<kOverlap, elementwise_kernel<scalar_t, Act, sizeof(scalar_t), kBlock, kUnits, true,
                                                         TileTest::kAllButLastBlock, int64_t, kOverlap>>(
      grid_for<kBlock, kUnits>(n), kBlock, stream, dst, in, n, act);
}

// Packs per thread and tile on devices whose memory outruns an H100's per
// SM: 2 for GELU (erf) in 16 bits, whose erf is the costliest math here, 1
// for the rest. On an H200 (2026-11-28,
// bench/results/roofline-h200-2026-11-28c-probe26a.log, impl 34 against 33,
// one block per tile) two packs ran GELU bfloat16 253.6 us against 258.2 and
// float16 253.4-253.6 against 253.9 and 257.5 (impl 31, no bounds checks at
// all: 252.7 and 256.9), but float32 506.5 against 505.1 and silu and
// gelu_quick 1.0-1.2% slower. (An earlier log, probe18c, had bfloat16 in two
// packs at 273.9 with the grid-stride kernel, which now runs it at 253.5:
// impl 7 of probe26a.)
template <typename scalar_t, typename Act>
constexpr int elementwise_units_fast_memory() {
  constexpr bool kErf = std::is_same_v<Act, activation::GeluErf> || std::is_same_v<Act, GeluErfNarrow>;
  return kErf && sizeof(scalar_t) == 2 ? 2 : 1;
}

// Up to this many packs, float32 takes two packs per thread on devices whose
// memory outruns an H100's, with PyTorch's whole-tile test (see TileTest;
// GELU (erf) interleaved): PyTorch's shape for float32, whose vectorized
// elementwise kernel has two LDG.E.128 per thread in blocks of 128
// (bench/results/torch-2.11-gelu-float32-sass-counts.txt). On an H200
// (2026-11-29, bench/results/roofline-h200-2026-11-29-probe31b.log, device
// time in CUDA graphs, three repeats) that shape without any bounds test
// (probe impl 36) ran silu, gelu, gelu_tanh and gelu_quick at 256 x 8192 in
// 5.05-5.14 us against 5.31-5.54 for one pack (impl 33, the launcher's kernel
// then; Torch eager's silu, gelu and gelu_tanh 5.05-5.08), and at 768 and
// 1024 rows 0.6-3.2% faster than one pack; at 1536 and 2048 rows one pack
// was as fast or up to 1.2% faster, and at the large size 0.6-1.3%
// (probe31a). 2^21 packs: 1024 x 8192 floats. At 256 x 8192, 2048 blocks
// run in one wave and the last block to finish ends the kernel: 776b58c,
// which bounds-tested every block, and a last block always tested (impls 39
// and 43) ran silu, gelu_tanh and gelu_quick 0.05-0.15 us behind impl 36
// (probes 31c-31f), PyTorch's test level with it (impl 44, probe31g; gelu
// not in that probe; 33fff69's form: probe31h). At 256 x 8192 a 32-bit
// index gained nothing (probe31d: impls 41 and 42 of 4d20163, with
// 776b58c's kernel); at the large size it did for float32 GELU (below).
constexpr int64_t kFloatTwoPacksUpTo = int64_t{1} << 21;

// Above kFloatTwoPacksUpTo, float32 GELU (erf) takes one pack per thread
// with a 32-bit index (n < 2^31; past that the 64-bit one): probe impl 40's
// shape, PyTorch's one-pack kernel with the last block tested. On an H200
// (2026-11-29, bench/results/roofline-h200-2026-11-29f-probe54d.log, large
// size, 16 placements of the output: fresh allocations after pads of 0-1024
// MiB and offsets of 0-3072 KiB after the input) it ran in 499.9-503.1 us,
// at each placement 0.11-0.80% faster than 51e0079's two packs in 4 KB
// blocks with PDL (impl 0 then: 503.4-504.6), 0.26-0.34% faster than the
// same kernel's one pack with a 64-bit index (impl 33: 501.6-504.7), and
// 0.17-0.83% faster than the fastest Inductor kernel writing into the same
// output (median 1.0072x; 51e0079's 1.0001x, under at 4 of 16). Triton's
// one-pack shape with no bounds test at all (impl 31, n a multiple of the
// tile) ran 0.1% faster still. As the launcher (probe54e.log, a later call)
// it ran 499.5-501.3 us, 0.59-0.93% faster than Inductor at all 16
// placements. silu and gelu_quick keep the 64-bit index: their one pack
// (impl 0) was level with impl 31 there (probe54c.log).
template <typename Act>
constexpr bool float_index32_above_two_packs() {
  return std::is_same_v<Act, activation::GeluErf>;
}

// Blocks of kThreads, or on devices whose memory outruns an H100's per SM
// (gpu_compat::memory_outruns_h100) the shape of Triton's elementwise kernel
// (no loop over tiles): blocks of kThreadsFastMemory (in 16 bits at one pack
// per thread kThreadsHalfOnePackFastMemory, for PDL: below),
// elementwise_units_fast_memory's packs per thread (float32: two up to
// kFloatTwoPacksUpTo packs), one block per tile, no
// loop over tiles and no bounds checks but in the last block. On an H200
// (2026-11-28) Triton's own shape (probe impl 31, no bounds checks at all)
// ran GELU bfloat16 258.0 us against 265.4 for the grid-stride kernel of the
// same blocks in one pack (the launcher then,
// bench/results/roofline-h200-2026-11-28c-probe24a.log) and float32
// 499.8-501.2 against 505.2 in one pack (impl 6, probe25b.log) and 504.6 in
// two (the launcher then, probe24a); this kernel (impl 33 in probe26a) ran
// GELU float32 505.1 against impl 6's 508.4 but against 504.8-504.9 in two
// packs (impl 7, grid-stride), and silu and gelu_quick within 0.2% of impl
// 6: no gain shown over the grid-stride kernel but Triton's own shape's,
// which the next probe call compares again. Blocks of 128 had run every
// elementwise op 0.9-1.7% faster than blocks of 256
// (probe18c). That was before PDL (gpu_compat::launch), which a block of
// 2 KB does not take: in 16 bits, one pack per thread in blocks of 256 (4 KB,
// launched with PDL) ran silu and gelu_quick bfloat16 at the large size in
// 251.4 us against 252.5-252.6 in blocks of 128 without it (H200,
// 2026-11-29, bench/results/roofline-h200-2026-11-29d-probe52b.log, three
// repeats each), but float32 slower in blocks of 256: silu 506.5-506.7
// against 505.7-505.8, gelu_quick 506.0 against 505.7-505.8, gelu 512.0-512.4
// against 508.3-508.5 (probe52a), so float32 keeps blocks of 128. Only
// bfloat16 silu and gelu_quick at the large size were probed; float16, the
// tanh GELUs and the smaller sizes take blocks of 256 by that measurement
// alone (its odd-shape checks ran the launcher on the GPU, 16-bit gelu_tanh
// in one pack among them).
template <typename scalar_t, typename Act>
const char *elementwise(scalar_t *dst, const scalar_t *in, int64_t n, Act act, cudaStream_t stream) {
  if (gpu_compat::memory_outruns_h100()) {
    constexpr int kUnits = elementwise_units_fast_memory<scalar_t, Act>();
    if constexpr (std::is_same_v<scalar_t, float>) {
      if (n / Pack<scalar_t>::kSize <= kFloatTwoPacksUpTo) {  // a block per tile
        constexpr TileTest kTest =
            std::is_same_v<Act, activation::GeluErf> ? TileTest::kWholeTileInterleaved : TileTest::kWholeTile;
        return elementwise_in_blocks<scalar_t, Act, kThreadsFastMemory, 2, false, kTest>(dst, in, n, act, stream);
      }
      if constexpr (float_index32_above_two_packs<Act>()) {
        if (n <= INT32_MAX) {  // a block per tile: fewer than 2^29 packs, 2^22 blocks
          return elementwise_in_blocks<scalar_t, Act, kThreadsFastMemory, 1, false, TileTest::kAllButLastBlock,
                                       uint32_t>(dst, in, n, act, stream);
        }
      }
    }
    constexpr int kBlock = sizeof(scalar_t) == 2 && kUnits == 1 ? kThreadsHalfOnePackFastMemory : kThreadsFastMemory;
    if (one_block_per_tile<kBlock, kUnits>(n / Pack<scalar_t>::kSize)) {
      return elementwise_in_blocks<scalar_t, Act, kBlock, kUnits, false>(dst, in, n, act, stream);
    }
    return elementwise_in_blocks<scalar_t, Act, kBlock, kUnits, true>(dst, in, n, act, stream);
  }
  return elementwise_in_blocks<scalar_t, Act, kThreads, kPerThread, true>(dst, in, n, act, stream);
}

// The gated kernel's launch shape for a storage type and gate op: bytes per
// access and threads per block, one output unit per thread. Measured on an
// H100 at the large size (bench/results/roofline-h100-2026-11-28-probe14a.log,
// impl 23 against impl 1, the 16-byte packs in blocks of 1024 used before):
// 8-byte units in blocks of 256 (the shape of one of the two configs
// Inductor autotunes for float32 silu_and_mul and fatrelu_and_mul) ran the
// float32 silu, gelu, gelu_tanh and fatrelu gates 0.8-1.4% faster (silu_and_mul
// 519.9 against 526.8-527.1 µs) and the 16-bit gelu, gelu_tanh and fatrelu
// gates 0.2-0.8% faster (fatrelu_and_mul 261.4 against 263.4); 16-bit
// silu_and_mul ran 2.0-2.2% slower that way (268.3-269.0 against 263.1-263.2),
// so silu's gates (mul_and_silu too, not probed) keep the packs in 16 bits.
// bench/RESULTS.md has the five-run bench of this choice, mul_and_silu
// included. float64 keeps the packs (not measured).
struct GatedShape {
  int unit_bytes;
  int threads;
};
template <typename scalar_t, typename Op>
constexpr GatedShape gated_shape() {
  constexpr bool kSiluGate = std::is_same_v<Op, activation::SiluAndMul> || std::is_same_v<Op, activation::MulAndSilu>;
  if constexpr (sizeof(scalar_t) == 4 || (sizeof(scalar_t) == 2 && !kSiluGate)) {
    return GatedShape{8, 256};
  } else {
    return GatedShape{kPackBytes, 1024};
  }
}

// On devices whose memory outruns an H100's per SM (gpu_compat::
// memory_outruns_h100), every gate takes 16-byte packs in blocks of 1024 but
// 16-bit gelu_and_mul, in blocks of 128. On an H200 (2026-11-28,
// bench/results/roofline-h200-2026-11-28-probe17c.log to probe19b) the
// 8-byte units above left too few bytes in flight: float32 gates ran
// 394.4-398.6 us in them against 366.5-367.2 in this shape (Inductor
// 370.0-370.8), the 16-bit gelu and gelu_tanh gates 199.0-203.6 against
// 184.9-185.4 (Inductor 188.8-214.7); blocks of 1024 ran bfloat16
// gelu_and_mul at 203.1-203.5, blocks of 128 at 185.3-185.8 (float16
// gelu_and_mul takes 128 too, as benched: 185.9-186.3 there against
// 184.9-185.3 in 1024, both far ahead of Inductor's erf).
template <typename scalar_t, typename Op>
constexpr GatedShape gated_shape_fast_memory() {
  if constexpr (sizeof(scalar_t) == 2 && std::is_same_v<Op, activation::GeluAndMul>) {
    return GatedShape{kPackBytes, 128};
  } else {
    return GatedShape{kPackBytes, 1024};
  }
}

// `op` computed in the form form_for gives for scalar_t, in units of
// kUnitBytes in blocks of kBlock.
template <typename scalar_t, typename Op, typename IdxT, int kUnitBytes, int kBlock>
const char *launch_gated_shaped(scalar_t *dst, const scalar_t *in, int64_t rows, int64_t d, Op op,
                                cudaStream_t stream) {
  constexpr int64_t kSize = unit_t<scalar_t, kUnitBytes>::kSize;
  const auto form = form_for<scalar_t>(op);
  using Form = std::remove_const_t<decltype(form)>;
  if (d % kSize == 0 && is_aligned(in, kUnitBytes) && is_aligned(dst, kUnitBytes)) {
    const int64_t d_units = d / kSize;
    constexpr bool kOverlap = gpu_compat::overlaps_launches(2 * kBlock * kGatedPerThread * kUnitBytes);
    return gpu_compat::launch<kOverlap,
                              gated_kernel<scalar_t, Form, IdxT, kUnitBytes, kBlock, kGatedPerThread, kOverlap>>(
        grid_for<kBlock, kGatedPerThread>(rows * d_units), kBlock, stream, dst, in, static_cast<IdxT>(rows),
        static_cast<IdxT>(d_units), form);
  }
  constexpr bool kOverlap = gpu_compat::overlaps_launches(2 * kBlock * kGatedPerThread * sizeof(scalar_t));
  return gpu_compat::launch<kOverlap,
                            gated_kernel<scalar_t, Form, IdxT, sizeof(scalar_t), kBlock, kGatedPerThread, kOverlap>>(
      grid_for<kBlock, kGatedPerThread>(rows * d), kBlock, stream, dst, in, static_cast<IdxT>(rows),
      static_cast<IdxT>(d), form);
}

// `op` in the shape gated_shape or gated_shape_fast_memory gives for the op.
template <typename scalar_t, typename Op, typename IdxT>
const char *launch_gated(scalar_t *dst, const scalar_t *in, int64_t rows, int64_t d, Op op, cudaStream_t stream) {
  if (gpu_compat::memory_outruns_h100()) {
    constexpr GatedShape kShape = gated_shape_fast_memory<scalar_t, Op>();
    return launch_gated_shaped<scalar_t, Op, IdxT, kShape.unit_bytes, kShape.threads>(dst, in, rows, d, op, stream);
  }
  constexpr GatedShape kShape = gated_shape<scalar_t, Op>();
  return launch_gated_shaped<scalar_t, Op, IdxT, kShape.unit_bytes, kShape.threads>(dst, in, rows, d, op, stream);
}

template <typename scalar_t, typename Op>
const char *gated(scalar_t *dst, const scalar_t *in, int64_t rows, int64_t d, Op op, cudaStream_t stream) {
  // The input holds rows * 2d elements; below 2^31 the index math is 32-bit.
  if (rows * 2 * d <= std::numeric_limits<int32_t>::max()) {
    return launch_gated<scalar_t, Op, uint32_t>(dst, in, rows, d, op, stream);
  }
  return launch_gated<scalar_t, Op, int64_t>(dst, in, rows, d, op, stream);
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
    return elementwise(static_cast<scalar_t *>(out), static_cast<const scalar_t *>(in), n, form_for<scalar_t>(act),
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
