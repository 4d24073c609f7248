// Activation device code (CUDA and HIP).
//
// Memory-bound kernels, so the layout of the accesses is the whole design.
// Each thread moves one 16-byte pack (8 halves / 4 floats) of the output per
// tile (the gated ops load two, one from each half of the input row),
// converts to the op-math type (float for float32/float16/bfloat16) and
// rounds once on store; accesses coalesced across the warp; blocks of
// kThreads threads (gated: kGatedThreads), one tile of kThreads * kPerThread
// packs each, as many blocks as tiles, so the hardware keeps every SM full of
// short blocks (a grid-stride loop over tiles keeps any size correct).
// Measured on an H100 (reference/kernels/tests/roofline_probe.py, issue #32):
// this shape moves 100% of the device-to-device copy bandwidth (the gated
// ops, which read twice what they write, 100.6-101.6%); more packs per thread
// (2-8, all loads issued first) or a persistent grid of resident blocks moved
// 87-99%. The elementwise ops' fewer than 8 elements past the last whole pack
// are done by block 0 with scalar accesses; a pointer that is not 16-byte
// aligned, or (gated ops) d not a multiple of the pack size, makes the whole
// tensor take the scalar form of the same kernel.
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

constexpr int kThreads = 256;
// The gated ops in 16 bits moved 0.6% more in blocks of 1024 than of 256
// (silu_and_mul, fatrelu_and_mul, gelu_and_mul: 263.2-263.7 against
// 265.0-265.2 µs; gelu_tanh_and_mul the exception, 265.2-265.8 against
// 263.5), float32 the same (bench/results/roofline-h100-2026-11-28-probe9.log);
// the elementwise ops lost 1-6% in blocks of 1024.
constexpr int kGatedThreads = 1024;
constexpr int kPerThread = 1;       // elementwise: packs per thread and tile
constexpr int kGatedPerThread = 1;  // gated: output packs per thread and tile (two input packs each)
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

// The functor a storage type computes `op` with: the GELU ops take their
// narrow form for 16-bit types, everything else is `op` itself.
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
  } else {
    return op;
  }
}

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

// out[i] = act(in[i]) for i < n. Tile t covers units
// [t * kBlock * kUnits, (t + 1) * kBlock * kUnits); a thread's units are
// threadIdx.x + k * kBlock of its tile, all loaded before the first is used.
template <typename scalar_t, typename Act, bool kVectorized, int kBlock, int kUnits>
__global__ void __launch_bounds__(kBlock)
    elementwise_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in, int64_t n, Act act) {
  using acc_t = opmath_t<scalar_t>;
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
          u[k].v[j] = static_cast<scalar_t>(act(static_cast<acc_t>(u[k].v[j])));
        }
        out_u[first + k * kBlock] = u[k];
      }
    }
  }
  if (kVectorized && blockIdx.x == 0) {  // the scalar tail: fewer than one pack
    const int64_t i = units * U::kSize + threadIdx.x;
    if (i < n) {
      out[i] = static_cast<scalar_t>(act(static_cast<acc_t>(in[i])));
    }
  }
}

// The row of a flattened index, i / d, for the gated kernel's 32-bit form
// (every index below 2^31): a multiply-high, an add and a shift instead of a
// division by a value only known at run time, which takes about ten
// instructions per pack on CUDA. Granlund and Montgomery, "Division by
// invariant integers using multiplication" (PLDI 1994), section 4: with
// s = ceil(log2 d) and m = floor(2^32 (2^s - d) / d) + 1, which fits in 32
// bits, i / d = (mulhi(i, m) + i) >> s for every 32-bit i, the sum taken
// in 33 bits; mulhi(i, m) <= i < 2^31 keeps it in 32.
// reference/kernels/tests/row_split_check.py checks the identity.
struct RowSplit32 {
  using Index = uint32_t;
  uint32_t d;
  uint32_t magic;
  uint32_t shift;

  static RowSplit32 for_divisor(uint32_t d) {  // d >= 1
    uint32_t s = 0;
    while ((uint64_t{1} << s) < d) {
      ++s;
    }
    const uint64_t m = ((uint64_t{1} << 32) * ((uint64_t{1} << s) - d)) / d + 1;
    return RowSplit32{d, static_cast<uint32_t>(m), s};
  }
  __device__ uint32_t row(uint32_t i) const { return (__umulhi(i, magic) + i) >> shift; }
};

// The same for 64-bit indexes (inputs of 2^31 elements or more): a division.
struct RowSplit64 {
  using Index = int64_t;
  int64_t d;

  __device__ int64_t row(int64_t i) const { return i / d; }
};

// out[r, j] = gate(in[r, j], in[r, d + j]) for r < rows, j < d, with d
// counted in units (d_elems / kSize in the vectorised form): output unit i of
// the flattened [rows, d] output reads input units i + row(i) * d and that
// + d, row(i) = i / d from `split` (RowSplit32 below 2^31 elements).
template <typename scalar_t, typename Gate, typename Split, bool kVectorized, int kBlock, int kUnits>
__global__ void __launch_bounds__(kBlock)
    gated_kernel(scalar_t *__restrict__ out, const scalar_t *__restrict__ in, typename Split::Index rows, Split split,
                 Gate gate) {
  using acc_t = opmath_t<scalar_t>;
  using U = unit_t<scalar_t, kVectorized>;
  using IdxT = typename Split::Index;
  constexpr IdxT kTile = static_cast<IdxT>(kBlock) * kUnits;
  const IdxT d = split.d;
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
        const IdxT a_idx = i + split.row(i) * d;  // row * 2d + (i - row * d)
        a[k] = load_unit(in_u + a_idx);
        b[k] = load_unit(in_u + a_idx + d);
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

template <typename scalar_t, typename Act>
const char *elementwise(scalar_t *dst, const scalar_t *in, int64_t n, Act act, cudaStream_t stream) {
  if (is_pack_aligned(in) && is_pack_aligned(dst)) {
    elementwise_kernel<scalar_t, Act, true, kThreads, kPerThread>
        <<<grid_for<kThreads, kPerThread>(n / Pack<scalar_t>::kSize), kThreads, 0, stream>>>(dst, in, n, act);
  } else {
    elementwise_kernel<scalar_t, Act, false, kThreads, kPerThread>
        <<<grid_for<kThreads, kPerThread>(n), kThreads, 0, stream>>>(dst, in, n, act);
  }
  return gpu_compat::launch_error();
}

template <typename scalar_t, typename Gate, typename Split>
const char *launch_gated(scalar_t *dst, const scalar_t *in, int64_t rows, int64_t d, Gate gate, cudaStream_t stream,
                         Split (*split_for)(int64_t)) {
  constexpr int64_t kSize = Pack<scalar_t>::kSize;
  using IdxT = typename Split::Index;
  if (d % kSize == 0 && is_pack_aligned(in) && is_pack_aligned(dst)) {
    const int64_t d_packs = d / kSize;
    gated_kernel<scalar_t, Gate, Split, true, kGatedThreads, kGatedPerThread>
        <<<grid_for<kGatedThreads, kGatedPerThread>(rows * d_packs), kGatedThreads, 0, stream>>>(
            dst, in, static_cast<IdxT>(rows), split_for(d_packs), gate);
  } else {
    gated_kernel<scalar_t, Gate, Split, false, kGatedThreads, kGatedPerThread>
        <<<grid_for<kGatedThreads, kGatedPerThread>(rows * d), kGatedThreads, 0, stream>>>(
            dst, in, static_cast<IdxT>(rows), split_for(d), gate);
  }
  return gpu_compat::launch_error();
}

template <typename scalar_t, typename Gate>
const char *gated(scalar_t *dst, const scalar_t *in, int64_t rows, int64_t d, Gate gate, cudaStream_t stream) {
  if (rows <= 0 || d <= 0) {
    return nullptr;  // nothing to write (and no divisor for the row split)
  }
  // The input holds rows * 2d elements; below 2^31 the index math is 32-bit.
  if (rows * 2 * d <= std::numeric_limits<int32_t>::max()) {
    return launch_gated(dst, in, rows, d, gate, stream,
                        +[](int64_t units) { return RowSplit32::for_divisor(static_cast<uint32_t>(units)); });
  }
  return launch_gated(dst, in, rows, d, gate, stream, +[](int64_t units) { return RowSplit64{units}; });
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
    return gated(static_cast<scalar_t *>(out), static_cast<const scalar_t *>(in), rows, d, form_for<scalar_t>(gate),
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
