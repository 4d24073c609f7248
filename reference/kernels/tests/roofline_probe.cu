// Issue #32's probe: the reference kernels' device code, compiled into one
// shared library (no Torch) for reference/kernels/tests/roofline_probe.py,
// which times it against Torch on the same buffers. Each kernel source is
// compiled inside a namespace of its own, the current one (new_*) and, with
// -DPROBE_OLD, an earlier commit's (old_*),
// so that a launch shape other than the one the launcher picks (threads,
// packs per thread, a persistent grid) can be timed from the same kernel
// templates. Exploration only: the published figures come from
// `scripts/gpu-check.sh repeat` (kcheck bench) on the variants kcheck builds.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

// The kernel sources, copied by roofline_probe.sh (each copy of gpu_compat.h
// made distinct: #pragma once takes identical files for one).
namespace new_relu {
#include PROBE_NEW_RELU
}
namespace new_act {
#include PROBE_NEW_ACT
}
namespace new_rms {
#include PROBE_NEW_RMS
}
#if defined(PROBE_OLD)
namespace old_relu {
#include PROBE_OLD_RELU
}
namespace old_act {
#include PROBE_OLD_ACT
}
namespace old_rms {
#include PROBE_OLD_RMS
}
#endif

namespace {

int sms() {
  int device = 0, count = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
  return count;
}

const char *last_error() {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? nullptr : cudaGetErrorString(e);
}

// dtype: 0 float32, 1 float16, 2 bfloat16 (H and B: the namespace's types).
template <typename H, typename B, typename Body>
const char *with_dtype(int dtype, Body body) {
  switch (dtype) {
    case 0:
      return body(float{});
    case 1:
      return body(H{});
    default:
      return body(B{});
  }
}

// Blocks resident per SM for a kernel at `threads`.
template <typename Kernel>
int resident(Kernel kernel, int threads) {
  int blocks = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0);
  return std::max(blocks, 1);
}

// Faster forms of the activations, for float16/bfloat16 (the float
// op-math's rounding errors stay far under the 16-bit output's).
struct SiluFast {
  __device__ float operator()(float x) const { return x * __frcp_rn(1.0f + __expf(-x)); }
};
struct GeluTanhFast {  // 0.5 x (1 + tanh(u)) = x * sigmoid(2u)
  __device__ float operator()(float x) const {
    const float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
    return x * __frcp_rn(1.0f + __expf(-2.0f * u));
  }
};
struct Identity {
  template <typename T>
  __device__ T operator()(T x) const {
    return x;
  }
};
struct MulGate {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a * b;
  }
};
template <typename Act>
struct FastAndMul {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return Act()(a) * b;
  }
};

// Exact GELU without erff, for float16/bfloat16 outputs (issue #32):
// gelu(x) = x * Phi(x) = max(x, 0) - |x| * Q(|x|), Q(a) = 1 - Phi(a) =
// 0.5 erfc(a / sqrt(2)), with log2 Q(a) a degree-10 polynomial in a fitted
// (weighted minimax) on [0, 14.2]: |error of Phi| <= 3e-8, Q's relative
// error <= 6e-6 for a <= 4; past 14.2 (clamped) 2^P underflows to 0. One
// branch-free polynomial and one ex2 instead of erff's two polynomials,
// selects and a branch.
__device__ __forceinline__ float ex2_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
template <bool kNanClamp>
struct GeluPolyT {
  __device__ float operator()(float x) const {
    const float abs_x = fabsf(x);
    // kNanClamp: a NaN stays NaN (fminf would make it 14.2).
    const float a = kNanClamp ? (abs_x > 14.2f ? 14.2f : abs_x) : fminf(abs_x, 14.2f);
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
    return fmaf(-a, ex2_ftz(p), fmaxf(x, 0.0f));
  }
};
using GeluPoly = GeluPolyT<true>;

// The 16-bit types two at a time (one cvt for two floats on store).
template <typename T>
__device__ __forceinline__ float2 unpack2(uint32_t w) {
  if constexpr (sizeof(T) == 2 && std::is_same_v<T, new_act::gpu_compat::BFloat16>) {
    __nv_bfloat162 h;
    memcpy(&h, &w, 4);
    return __bfloat1622float2(h);
  } else {
    __half2 h;
    memcpy(&h, &w, 4);
    return __half22float2(h);
  }
}
template <typename T>
__device__ __forceinline__ uint32_t pack2(float2 f) {
  uint32_t w;
  if constexpr (std::is_same_v<T, new_act::gpu_compat::BFloat16>) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(f.x, f.y);
    memcpy(&w, &h, 4);
  } else {
    const __half2 h = __floats2half2_rn(f.x, f.y);
    memcpy(&w, &h, 4);
  }
  return w;
}
// One 16-byte pack per thread, converted in pairs (16-bit types, n a multiple of 8).
template <typename T, typename Act, int kBlock>
__global__ void __launch_bounds__(kBlock) act_pairs(T *__restrict__ out, const T *__restrict__ in, int64_t n, Act act) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kBlock + threadIdx.x;
  if (i < n / 8) {
    uint4 v = reinterpret_cast<const uint4 *>(in)[i];
    uint32_t w[4];
    memcpy(w, &v, 16);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float2 f = unpack2<T>(w[j]);
      f.x = act(f.x);
      f.y = act(f.y);
      w[j] = pack2<T>(f);
    }
    memcpy(&v, w, 16);
    reinterpret_cast<uint4 *>(out)[i] = v;
  }
}
// A 16-byte load as Triton's SASS has it, ld.global.v4 (LDG.E.128), where
// one through a restrict-qualified pointer becomes ld.global.nc.
__device__ __forceinline__ uint4 load_plain(const uint4 *src) {
  uint4 bits;
  asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(bits.x), "=r"(bits.y), "=r"(bits.z), "=r"(bits.w)
               : "l"(src));
  return bits;
}
// act on each element of a 16-byte pack of T, converted one by one as the
// launcher's kernel does.
template <typename T, typename Act>
__device__ __forceinline__ uint4 act_on_pack(uint4 bits, Act act) {
  constexpr int kSize = 16 / sizeof(T);
  new_act::Unit<T, kSize> u;
  memcpy(&u, &bits, 16);
#pragma unroll
  for (int j = 0; j < kSize; ++j) {
    u.v[j] = static_cast<T>(act(static_cast<float>(u.v[j])));
  }
  memcpy(&bits, &u, 16);
  return bits;
}
// Triton's shape for an elementwise op (Inductor's XBLOCK 1024 in 4 warps on
// an H200: one 16-byte pack per thread of 128): no loop over tiles, no bounds
// check (n a multiple of the tile). kPlainLoad: load_plain; otherwise through
// the restrict-qualified pointer (LDG.E.128.CONSTANT), as in the launcher's.
// kUnits packs per thread (all loaded first; PyTorch's vectorized elementwise
// kernel for float32 takes 2, blocks of 128: the torch 2.11 wheel's sm_90
// SASS has two LDG.E.128 per thread), the index in IdxT (PyTorch's is a
// signed 32-bit int; 36 and 37 take uint32_t).
template <typename T, typename Act, int kBlock, bool kPlainLoad, int kUnits = 1, typename IdxT = int64_t>
__global__ void __launch_bounds__(kBlock) act_triton_like(T *__restrict__ out, const T *__restrict__ in, Act act) {
  const IdxT first = static_cast<IdxT>(blockIdx.x) * (kBlock * kUnits) + threadIdx.x;
  const uint4 *src = reinterpret_cast<const uint4 *>(in);
  uint4 bits[kUnits];
#pragma unroll
  for (int k = 0; k < kUnits; ++k) {
    bits[k] = kPlainLoad ? load_plain(src + (first + k * kBlock)) : src[first + k * kBlock];
  }
#pragma unroll
  for (int k = 0; k < kUnits; ++k) {
    reinterpret_cast<uint4 *>(out)[first + k * kBlock] = act_on_pack<T>(bits[k], act);
  }
}
// act_triton_like for any n, as a launcher would need it: every block but
// the last moves a whole tile with no bounds checks (plain loads, 32-bit
// index); the last checks each pack (its loads first too since 2026-11-29;
// probe31a's 39 and 40 loaded, computed and stored one pack after another
// there) and converts the elements past the last whole pack one by one.
// kTest: kLastBlock, as above; kLastBlockWholeFirst, the test is written
// for the last block, so the whole tile's code falls through (first in the
// SASS) instead of sitting behind a branch; kTileWhole, PyTorch's test: a
// block whose tile lies wholly below n takes the whole tile's code, the last
// block too. n < 2^31 elements (the index is 32-bit); 16-byte aligned
// pointers.
// kPdl (probe32b): launched with programmatic stream serialization (PDL,
// sm_90), the kernel waits for the grid before it (griddepcontrol.wait)
// before its first access; Pdl::kWaitEarly also lets the grid after it launch at
// once (griddepcontrol.launch_dependents), whose wait still holds it until
// this grid has finished and its writes are visible.
enum class TorchLikeTest { kLastBlock, kLastBlockWholeFirst, kTileWhole };
enum class Pdl { kOff, kWait, kWaitEarly };
template <typename T, typename Act, int kBlock, int kUnits, TorchLikeTest kTest = TorchLikeTest::kLastBlock,
          Pdl kPdl = Pdl::kOff>
__global__ void __launch_bounds__(kBlock)
    act_torch_like(T *__restrict__ out, const T *__restrict__ in, uint32_t n, Act act) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (kPdl != Pdl::kOff) asm volatile("griddepcontrol.wait;" ::: "memory");
  if constexpr (kPdl == Pdl::kWaitEarly) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  const uint32_t packs = n / (16 / sizeof(T));
  const uint32_t first = blockIdx.x * (kBlock * kUnits) + threadIdx.x;
  const uint4 *src = reinterpret_cast<const uint4 *>(in);
  uint4 *dst = reinterpret_cast<uint4 *>(out);
  const auto whole_tile = [&] {
    uint4 bits[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      bits[k] = load_plain(src + first + k * kBlock);
    }
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      dst[first + k * kBlock] = act_on_pack<T>(bits[k], act);
    }
  };
  const auto tested_tile = [&] {
    uint4 bits[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      if (first + k * kBlock < packs) bits[k] = load_plain(src + first + k * kBlock);
    }
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      if (first + k * kBlock < packs) dst[first + k * kBlock] = act_on_pack<T>(bits[k], act);
    }
  };
  const auto scalar_tail = [&] {
    const uint32_t i = packs * (16 / sizeof(T)) + threadIdx.x;
    if (i < n) out[i] = static_cast<T>(act(static_cast<float>(in[i])));
  };
  const auto last_tile = [&] {
    tested_tile();
    scalar_tail();
  };
  if constexpr (kTest == TorchLikeTest::kLastBlockWholeFirst) {
    if (blockIdx.x + 1 == gridDim.x) {
      last_tile();
      return;
    }
    whole_tile();
  } else if constexpr (kTest == TorchLikeTest::kTileWhole) {
    if ((blockIdx.x + 1) * (kBlock * kUnits) <= packs) {
      whole_tile();
    } else {
      tested_tile();
    }
    if (blockIdx.x + 1 == gridDim.x) scalar_tail();  // a whole last tile can still have elements past it
  } else {
    if (blockIdx.x + 1 < gridDim.x) {
      whole_tile();
      return;
    }
    last_tile();
  }
}
template <typename T, typename Act, int kBlock>
__global__ void __launch_bounds__(kBlock)
    gated_pairs(T *__restrict__ out, const T *__restrict__ in, uint32_t rows, uint32_t dp, Act act) {
  const uint32_t i = blockIdx.x * kBlock + threadIdx.x;
  if (i < rows * dp) {
    const uint32_t a_idx = i + (i / dp) * dp;
    const uint4 va = reinterpret_cast<const uint4 *>(in)[a_idx];
    const uint4 vb = reinterpret_cast<const uint4 *>(in)[a_idx + dp];
    uint32_t wa[4], wb[4];
    memcpy(wa, &va, 16);
    memcpy(wb, &vb, 16);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 fa = unpack2<T>(wa[j]);
      const float2 fb = unpack2<T>(wb[j]);
      wa[j] = pack2<T>(make_float2(act(fa.x) * fb.x, act(fa.y) * fb.y));
    }
    uint4 v;
    memcpy(&v, wa, 16);
    reinterpret_cast<uint4 *>(out)[i] = v;
  }
}

// Cache hints for the probe's own kernels (sm_70+ PTX): 0 none; 1 loads
// ld.global.cs and stores st.global.cs (evict first); 2 loads
// ld.global.nc.L1::no_allocate; 3 stores st.global.cs only.
template <int kHint>
__device__ __forceinline__ uint4 load16(const void *p) {
  uint4 v;
  if constexpr (kHint == 1) {
    v = __ldcs(static_cast<const uint4 *>(p));
  } else if constexpr (kHint == 2) {
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else {
    v = *static_cast<const uint4 *>(p);
  }
  return v;
}
template <int kHint>
__device__ __forceinline__ void store16(void *p, uint4 v) {
  if constexpr (kHint == 1 || kHint == 3) {
    __stcs(static_cast<uint4 *>(p), v);
  } else {
    *static_cast<uint4 *>(p) = v;
  }
}

// relu, one 16-byte pack per thread, with cache hints.
template <typename T, int kHint>
__global__ void __launch_bounds__(128) relu_hinted(T *__restrict__ out, const T *__restrict__ in, int64_t n) {
  using P = new_relu::Pack<T>;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * 128 + threadIdx.x;
  if (i < n / P::kSize) {
    uint4 v = load16<kHint>(reinterpret_cast<const P *>(in) + i);
    P p;
    memcpy(&p, &v, 16);
#pragma unroll
    for (int j = 0; j < P::kSize; ++j) p.v[j] = new_relu::relu_op(p.v[j]);
    memcpy(&v, &p, 16);
    store16<kHint>(reinterpret_cast<P *>(out) + i, v);
  }
}

// rms_norm variants (packed only): kUnits packs per thread; the weight
// loaded with x (kWeightEarly) or after the reduction; x loaded with hint kHint.
template <typename T, int kUnits, bool kWeightEarly, int kHint>
__global__ void __launch_bounds__(kUnits <= 4 ? 1024 : 4096 / kUnits)
    rms_probe(T *__restrict__ out, const T *__restrict__ in, const T *__restrict__ weight, int64_t rows, int d,
              float eps) {
  using P = new_rms::Pack<T>;
  const int width = d / P::kSize;
  const P *w_u = reinterpret_cast<const P *>(weight);
  __shared__ float partial[2][32];
  int parity = 0;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x, parity ^= 1) {
    const P *x_u = reinterpret_cast<const P *>(in + row * d);
    P *o_u = reinterpret_cast<P *>(out + row * d);
    P x[kUnits];
    P w[kWeightEarly ? kUnits : 1];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = threadIdx.x + k * blockDim.x;
      if (i < width) {
        uint4 v = load16<kHint>(x_u + i);
        memcpy(&x[k], &v, 16);
        if constexpr (kWeightEarly) w[k] = w_u[i];
      }
    }
    float sum = 0;
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      if (threadIdx.x + k * blockDim.x < width) {
#pragma unroll
        for (int j = 0; j < P::kSize; ++j) {
          const float v = static_cast<float>(x[k].v[j]);
          sum += v * v;
        }
      }
    }
    sum = new_rms::block_sum(sum, partial[parity]);
    const float scale = rsqrtf(sum / static_cast<float>(d) + eps);
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = threadIdx.x + k * blockDim.x;
      if (i < width) {
        const P wk = kWeightEarly ? w[kWeightEarly ? k : 0] : w_u[i];
#pragma unroll
        for (int j = 0; j < P::kSize; ++j) {
          x[k].v[j] = static_cast<T>(static_cast<float>(x[k].v[j]) * scale * static_cast<float>(wk.v[j]));
        }
        o_u[i] = x[k];
      }
    }
  }
}

// Load hints, kPolicy: 0 none; L2 policies (sm_80+ createpolicy) 1 evict_first,
// 2 evict_last; L1 eviction priorities (Triton's eviction_policy emits them
// with the L2 policy) 3 evict_last, 4 evict_first; both together 5 evict_last,
// 6 evict_first. kBytes: 16 (one v4 load) or 8 (v2).
template <int kBytes>
using bits_t = std::conditional_t<kBytes == 16, uint4, uint2>;
#define PROBE_LOAD_HINTED(L1)                                                                                          \
  if constexpr (kBytes == 16 && kL2) {                                                                                 \
    asm volatile("ld.global" L1 ".L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"                                      \
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)                                                          \
                 : "l"(p), "l"(policy));                                                                               \
  } else if constexpr (kBytes == 16) {                                                                                 \
    asm volatile("ld.global" L1 ".v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p)); \
  } else if constexpr (kL2) {                                                                                          \
    asm volatile("ld.global" L1 ".L2::cache_hint.v2.u32 {%0,%1}, [%2], %3;"                                            \
                 : "=r"(v.x), "=r"(v.y)                                                                                \
                 : "l"(p), "l"(policy));                                                                               \
  } else {                                                                                                             \
    asm volatile("ld.global" L1 ".v2.u32 {%0,%1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));                             \
  }
template <int kBytes, int kPolicy>
__device__ __forceinline__ bits_t<kBytes> load_hinted(const void *p) {
  bits_t<kBytes> v;
  if constexpr (kPolicy == 0) {
    v = *static_cast<const bits_t<kBytes> *>(p);
  } else {
    constexpr bool kL2 = kPolicy == 1 || kPolicy == 2 || kPolicy >= 5;
    uint64_t policy = 0;
    if constexpr (kPolicy == 1 || kPolicy == 6) {
      asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    } else if constexpr (kL2) {
      asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    }
    if constexpr (kPolicy == 3 || kPolicy == 5) {
      PROBE_LOAD_HINTED(".L1::evict_last")
    } else if constexpr (kPolicy == 4 || kPolicy == 6) {
      PROBE_LOAD_HINTED(".L1::evict_first")
    } else {
      PROBE_LOAD_HINTED("")
    }
  }
  return v;
}
#undef PROBE_LOAD_HINTED
template <int kPolicy>
__device__ __forceinline__ void store16_l2(void *p, uint4 v) {
  if constexpr (kPolicy == 0) {
    *static_cast<uint4 *>(p) = v;
  } else {
    uint64_t policy;
    if constexpr (kPolicy == 1) {
      asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    } else {
      asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    }
    asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w), "l"(policy)
                 : "memory");
  }
}

// The production one-pass kernel with L2 policies: kX for the row's loads,
// kW for the weight's, kS for the stores.
template <typename T, int kUnits, int kX, int kW, int kS>
__global__ void __launch_bounds__(1024) rms_hinted(T *__restrict__ out, const T *__restrict__ in,
                                                   const T *__restrict__ weight, int64_t rows, int d, float eps) {
  using P = new_rms::Pack<T>;
  const int width = d / P::kSize;
  const P *w_u = reinterpret_cast<const P *>(weight);
  __shared__ float partial[2][32];
  int parity = 0;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x, parity ^= 1) {
    const P *x_u = reinterpret_cast<const P *>(in + row * d);
    P *o_u = reinterpret_cast<P *>(out + row * d);
    uint4 xb[kUnits], wb[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = min(static_cast<int>(threadIdx.x + k * blockDim.x), width - 1);
      xb[k] = load_hinted<16, kX>(x_u + i);
      wb[k] = load_hinted<16, kW>(w_u + i);
    }
    float sum = 0;
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      if (threadIdx.x + k * blockDim.x < width) {
        P x;
        memcpy(&x, &xb[k], 16);
#pragma unroll
        for (int j = 0; j < P::kSize; ++j) {
          const float v = static_cast<float>(x.v[j]);
          sum += v * v;
        }
      }
    }
    sum = new_rms::block_sum(sum, partial[parity]);
    const float scale = rsqrtf(sum / static_cast<float>(d) + eps);
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = threadIdx.x + k * blockDim.x;
      if (i < width) {
        P x, w;
        memcpy(&x, &xb[k], 16);
        memcpy(&w, &wb[k], 16);
#pragma unroll
        for (int j = 0; j < P::kSize; ++j) {
          x.v[j] = static_cast<T>(static_cast<float>(x.v[j]) * scale * static_cast<float>(w.v[j]));
        }
        uint4 v;
        memcpy(&v, &x, 16);
        store16_l2<kS>(o_u + i, v);
      }
    }
  }
}

// Inductor's form (its max-autotune kernel for rms_norm at 16384 x 8192):
// two loops over the row in chunks of blockDim.x * kUnits units of kBytes,
// the first summing with the row kept in L2 (evict_last), the second
// re-reading it (evict_first) with the weight (evict_last), scaling and
// storing; kFirst, kSecond and kWeight (load_hinted's policies) change the
// loads' hints. Triton's own kernel (Inductor's compiled here with Triton 3.6
// for sm_90a, results/roofline-h200-2026-11-28-triton-rms-sass.txt: 16-byte
// loads, 32 registers in float16, 40 in float32; the captured PTX in
// results/roofline-h200-2026-11-28-triton-rms-ptx.txt has 8-byte ones) is
// this with policies 5, 6, 5.
template <typename T, int kUnits, int kFirst = 2, int kSecond = 1, int kWeight = 2, int kBytes = 16,
          int kMaxThreads = 1024>
__global__ void __launch_bounds__(kMaxThreads)
    rms_two_loops(T *__restrict__ out, const T *__restrict__ in, const T *__restrict__ weight, int64_t rows, int d,
                  float eps) {
  constexpr int kSize = kBytes / sizeof(T);
  using U = new_rms::Unit<T, kSize>;
  using B = bits_t<kBytes>;
  const int width = d / kSize;
  const B *w_u = reinterpret_cast<const B *>(weight);
  __shared__ float partial[2][32];
  const int64_t row = blockIdx.x;
  const B *x_u = reinterpret_cast<const B *>(in + row * d);
  B *o_u = reinterpret_cast<B *>(out + row * d);
  float sum = 0;
  for (int base = 0; base < width; base += blockDim.x * kUnits) {
    B xb[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = min(static_cast<int>(base + threadIdx.x + k * blockDim.x), width - 1);
      xb[k] = load_hinted<kBytes, kFirst>(x_u + i);
    }
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      if (base + threadIdx.x + k * blockDim.x < width) {
        U x;
        memcpy(&x, &xb[k], kBytes);
#pragma unroll
        for (int j = 0; j < kSize; ++j) {
          const float v = static_cast<float>(x.v[j]);
          sum += v * v;
        }
      }
    }
  }
  sum = new_rms::block_sum(sum, partial[0]);
  const float scale = rsqrtf(sum / static_cast<float>(d) + eps);
  for (int base = 0; base < width; base += blockDim.x * kUnits) {
    B xb[kUnits], wb[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = min(static_cast<int>(base + threadIdx.x + k * blockDim.x), width - 1);
      xb[k] = load_hinted<kBytes, kSecond>(x_u + i);
      wb[k] = load_hinted<kBytes, kWeight>(w_u + i);
    }
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = base + threadIdx.x + k * blockDim.x;
      if (i < width) {
        U x, w;
        memcpy(&x, &xb[k], kBytes);
        memcpy(&w, &wb[k], kBytes);
#pragma unroll
        for (int j = 0; j < kSize; ++j) {
          x.v[j] = static_cast<T>(static_cast<float>(x.v[j]) * scale * static_cast<float>(w.v[j]));
        }
        B v;
        memcpy(&v, &x, kBytes);
        o_u[i] = v;
      }
    }
  }
}

// The one-pass kernel with fewer live registers across the reduction: the
// row's raw packs are loaded first, the weight (evict_last) only after the
// block's sum, and kMinBlocks (0: none) asks the compiler for that many
// resident blocks of 8192 / (pack * kUnits) threads (a row of 8192; half as
// many in float32, whose blocks are twice as large).
template <typename T, int kUnits, int kMinBlocks>
__global__ void __launch_bounds__(8192 / (16 / sizeof(T)) / kUnits,
                                  kMinBlocks > 0 ? (sizeof(T) == 4 ? kMinBlocks / 2 : kMinBlocks) : 1)
    rms_lean(T *__restrict__ out, const T *__restrict__ in, const T *__restrict__ weight, int64_t rows, int d,
             float eps) {
  using P = new_rms::Pack<T>;
  const int width = d / P::kSize;
  const P *w_u = reinterpret_cast<const P *>(weight);
  __shared__ float partial[2][32];
  int parity = 0;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x, parity ^= 1) {
    const P *x_u = reinterpret_cast<const P *>(in + row * d);
    P *o_u = reinterpret_cast<P *>(out + row * d);
    uint4 xb[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      xb[k] = load_hinted<16, 0>(x_u + min(static_cast<int>(threadIdx.x + k * blockDim.x), width - 1));
    }
    float sum = 0;
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      if (threadIdx.x + k * blockDim.x < width) {
        P x;
        memcpy(&x, &xb[k], 16);
#pragma unroll
        for (int j = 0; j < P::kSize; ++j) {
          const float v = static_cast<float>(x.v[j]);
          sum += v * v;
        }
      }
    }
    sum = new_rms::block_sum(sum, partial[parity]);
    const float scale = rsqrtf(sum / static_cast<float>(d) + eps);
    uint4 wb[kUnits];
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      wb[k] = load_hinted<16, 2>(w_u + min(static_cast<int>(threadIdx.x + k * blockDim.x), width - 1));
    }
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = threadIdx.x + k * blockDim.x;
      if (i < width) {
        P x, w;
        memcpy(&x, &xb[k], 16);
        memcpy(&w, &wb[k], 16);
#pragma unroll
        for (int j = 0; j < P::kSize; ++j) {
          x.v[j] = static_cast<T>(static_cast<float>(x.v[j]) * scale * static_cast<float>(w.v[j]));
        }
        o_u[i] = x;
      }
    }
  }
}

// Software-pipelined over rows: a grid of resident blocks, each issuing the
// loads of its next row before it reduces, scales and stores the row it
// holds, so that its loads stay in flight through the barrier and the stores.
template <typename T, int kUnits>
__global__ void __launch_bounds__(1024) rms_pipelined(T *__restrict__ out, const T *__restrict__ in,
                                                      const T *__restrict__ weight, int64_t rows, int d, float eps) {
  using P = new_rms::Pack<T>;
  const int width = d / P::kSize;
  const P *w_u = reinterpret_cast<const P *>(weight);
  __shared__ float partial[2][32];
  int idx[kUnits];
#pragma unroll
  for (int k = 0; k < kUnits; ++k) idx[k] = min(static_cast<int>(threadIdx.x + k * blockDim.x), width - 1);
  int64_t row = blockIdx.x;
  if (row >= rows) return;
  uint4 xb[kUnits];
#pragma unroll
  for (int k = 0; k < kUnits; ++k) xb[k] = load_hinted<16, 0>(reinterpret_cast<const P *>(in + row * d) + idx[k]);
  int parity = 0;
  for (; row < rows; row += gridDim.x, parity ^= 1) {
    const int64_t next = row + gridDim.x;
    uint4 nb[kUnits];
    if (next < rows) {
#pragma unroll
      for (int k = 0; k < kUnits; ++k) nb[k] = load_hinted<16, 0>(reinterpret_cast<const P *>(in + next * d) + idx[k]);
    }
    float sum = 0;
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      if (threadIdx.x + k * blockDim.x < width) {
        P x;
        memcpy(&x, &xb[k], 16);
#pragma unroll
        for (int j = 0; j < P::kSize; ++j) {
          const float v = static_cast<float>(x.v[j]);
          sum += v * v;
        }
      }
    }
    sum = new_rms::block_sum(sum, partial[parity]);
    const float scale = rsqrtf(sum / static_cast<float>(d) + eps);
    P *o_u = reinterpret_cast<P *>(out + row * d);
#pragma unroll
    for (int k = 0; k < kUnits; ++k) {
      const int i = threadIdx.x + k * blockDim.x;
      if (i < width) {
        const uint4 wv = load_hinted<16, 2>(w_u + i);
        P x, w;
        memcpy(&x, &xb[k], 16);
        memcpy(&w, &wv, 16);
#pragma unroll
        for (int j = 0; j < P::kSize; ++j) {
          x.v[j] = static_cast<T>(static_cast<float>(x.v[j]) * scale * static_cast<float>(w.v[j]));
        }
        o_u[i] = x;
      }
    }
#pragma unroll
    for (int k = 0; k < kUnits; ++k) xb[k] = nb[k];
  }
}

// Inductor's kernel with its static shape: the row exactly kUnits 16-byte
// units per thread of the block (the caller checks), so no loop and no bounds
// check (Triton's SASS for it: 200 instructions against rms_two_loops's
// 400, whose loop and bounds checks put branches between its loads), 1/d
// passed in (Inductor divides by 8192.0, a power of two) and rsqrt.approx.
// kTwoLoops: the row re-read (L1 evict_last, then evict_first) as Inductor's;
// otherwise kept in registers (one pass).
template <typename T, int kUnits, bool kTwoLoops>
__global__ void __launch_bounds__(512)
    rms_static(T *__restrict__ out, const T *__restrict__ in, const T *__restrict__ weight, float inv_d, float eps) {
  constexpr int kSize = 16 / sizeof(T);
  using U = new_rms::Unit<T, kSize>;
  __shared__ float partial[2][32];
  const int64_t row = blockIdx.x;
  const int width = blockDim.x * kUnits;
  const uint4 *x_u = reinterpret_cast<const uint4 *>(in) + row * width;
  const uint4 *w_u = reinterpret_cast<const uint4 *>(weight);
  uint4 *o_u = reinterpret_cast<uint4 *>(out) + row * width;
  uint4 xb[kUnits];
#pragma unroll
  for (int k = 0; k < kUnits; ++k) {
    xb[k] = kTwoLoops ? load_hinted<16, 5>(x_u + threadIdx.x + k * blockDim.x) : x_u[threadIdx.x + k * blockDim.x];
  }
  float sum = 0;
#pragma unroll
  for (int k = 0; k < kUnits; ++k) {
    U x;
    memcpy(&x, &xb[k], 16);
#pragma unroll
    for (int j = 0; j < kSize; ++j) {
      const float v = static_cast<float>(x.v[j]);
      sum += v * v;
    }
  }
  sum = new_rms::block_sum(sum, partial[0]);
  float scale;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(scale) : "f"(sum * inv_d + eps));
#pragma unroll
  for (int k = 0; k < kUnits; ++k) {
    const int i = threadIdx.x + k * blockDim.x;
    if constexpr (kTwoLoops) {
      xb[k] = load_hinted<16, 6>(x_u + i);
    }
    const uint4 wv = load_hinted<16, 5>(w_u + i);
    U x, w;
    memcpy(&x, &xb[k], 16);
    memcpy(&w, &wv, 16);
#pragma unroll
    for (int j = 0; j < kSize; ++j) {
      x.v[j] = static_cast<T>(static_cast<float>(x.v[j]) * scale * static_cast<float>(w.v[j]));
    }
    uint4 v;
    memcpy(&v, &x, 16);
    o_u[i] = v;
  }
}

// Dynamic shared memory that leaves at most `max_blocks` blocks of `threads`
// resident per SM (0: no limit), the probe's way of trying lower occupancy
// with the launcher's kernel unchanged.
template <typename Kernel>
size_t smem_for_blocks(Kernel kernel, int threads, int max_blocks) {
  if (max_blocks <= 0) {
    return 0;
  }
  int device = 0, per_sm = 0, per_block = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  cudaFuncAttributes attributes{};
  cudaFuncGetAttributes(&attributes, kernel);
  const int most = per_block - static_cast<int>(attributes.sharedSizeBytes);
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, most);
  size_t smem = 0;
  while (smem + 1024 <= static_cast<size_t>(most)) {
    int blocks = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem);
    if (blocks <= max_blocks) {
      return smem;
    }
    smem += 1024;
  }
  return smem;
}

}  // namespace

extern "C" {

int probe_sms() { return sms(); }

// The launchers' key for their launch shapes (gpu_compat::memory_bandwidth_per_sm).
double probe_memory_bandwidth_per_sm() { return new_act::gpu_compat::memory_bandwidth_per_sm(); }

// Registers per thread and resident blocks per SM of the rms_norm kernel at
// `units` packs per thread (2, 4, 8) for a row of `d` (dtype as above).
void probe_rms_shape(int units, int dtype, int d, int *registers, int *blocks) {
  with_dtype<new_rms::gpu_compat::Half, new_rms::gpu_compat::BFloat16>(dtype, [&](auto tag) -> const char * {
    using T = decltype(tag);
    auto report = [&](auto kernel) {
      cudaFuncAttributes attributes{};
      cudaFuncGetAttributes(&attributes, kernel);
      *registers = attributes.numRegs;
      const int threads = new_rms::threads_for(d / new_rms::Pack<T>::kSize, units);
      *blocks = resident(kernel, threads);
    };
    if (units == 2)
      report(new_rms::rms_norm_kernel<T, true, 2>);
    else if (units == 4)
      report(new_rms::rms_norm_kernel<T, true, 4>);
    else
      report(new_rms::rms_norm_kernel<T, true, 8>);
    return nullptr;
  });
}

// impl: 0 the launcher; 1 the old launcher; 2 persistent grid (resident
// blocks), 256 threads x 4 packs; 3 128 x 1; 4 256 x 2; 5 256 x 8; 6 512 x 4;
// 7 64 x 1; 8 256 x 1; 9 128 x 2; 10 512 x 1; 11-13 relu_hinted. Older
// logs: 14 and 15 (probe25a) were relu_kernel with one block per tile and no
// loop over tiles, 128 x 1 and 256 x 1 (a kGridStride switch since removed).
const char *probe_relu(int impl, int dtype, void *out, const void *in, int64_t n, void *stream_ptr) {
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (impl == 0) {
    return new_relu::relu_gpu::launch_relu(static_cast<new_relu::relu_gpu::ScalarKind>(dtype == 0 ? 0 : dtype + 1), out,
                                           in, n, stream);
  }
#if defined(PROBE_OLD)
  if (impl == 1) {
    return old_relu::relu_gpu::launch_relu(static_cast<old_relu::relu_gpu::ScalarKind>(dtype == 0 ? 0 : dtype + 1), out,
                                           in, n, stream);
  }
#endif
  return with_dtype<new_relu::gpu_compat::Half, new_relu::gpu_compat::BFloat16>(dtype, [&](auto tag) -> const char * {
    using T = decltype(tag);
    using P = new_relu::Pack<T>;
    T *o = static_cast<T *>(out);
    const T *i = static_cast<const T *>(in);
    const int64_t packs = n / P::kSize;
    auto go = [&](auto kernel, int threads, int units, bool persistent) {
      const int64_t tiles = std::max<int64_t>((packs + threads * units - 1) / (threads * units), 1);
      const int64_t cap = persistent ? int64_t(sms()) * resident(kernel, threads) : INT_MAX;
      kernel<<<static_cast<unsigned>(std::min(tiles, cap)), threads, 0, stream>>>(o, i, n);
    };
    if (impl >= 100) {  // 100 + 10 * threads (0: 128, 1: 256, 2: 512, 3: 1024) + most blocks per SM (0: any)
      auto shaped = [&](auto kernel, int threads) {
        const size_t smem = smem_for_blocks(kernel, threads, impl % 10);
        const int64_t tiles = std::max<int64_t>((packs + threads - 1) / threads, 1);
        kernel<<<static_cast<unsigned>(std::min<int64_t>(tiles, INT_MAX)), threads, smem, stream>>>(o, i, n);
      };
      switch ((impl / 10) % 10) {
        case 0:
          shaped(new_relu::relu_kernel<T, true, 128, 1>, 128);
          break;
        case 1:
          shaped(new_relu::relu_kernel<T, true, 256, 1>, 256);
          break;
        case 2:
          shaped(new_relu::relu_kernel<T, true, 512, 1>, 512);
          break;
        default:
          shaped(new_relu::relu_kernel<T, true, 1024, 1>, 1024);
          break;
      }
      return last_error();
    }
    switch (impl) {
      case 2:
        go(new_relu::relu_kernel<T, true, 256, 4>, 256, 4, true);
        break;
      case 3:
        go(new_relu::relu_kernel<T, true, 128, 1>, 128, 1, false);
        break;
      case 4:
        go(new_relu::relu_kernel<T, true, 256, 2>, 256, 2, false);
        break;
      case 5:
        go(new_relu::relu_kernel<T, true, 256, 8>, 256, 8, false);
        break;
      case 6:
        go(new_relu::relu_kernel<T, true, 512, 4>, 512, 4, false);
        break;
      case 7:
        go(new_relu::relu_kernel<T, true, 64, 1>, 64, 1, false);
        break;
      case 8:
        go(new_relu::relu_kernel<T, true, 256, 1>, 256, 1, false);
        break;
      case 9:
        go(new_relu::relu_kernel<T, true, 128, 2>, 128, 2, false);
        break;
      case 10:
        go(new_relu::relu_kernel<T, true, 512, 1>, 512, 1, false);
        break;
      case 11:
      case 12:
      case 13: {
        const unsigned blocks = static_cast<unsigned>(std::max<int64_t>((packs + 127) / 128, 1));
        if (impl == 11) relu_hinted<T, 1><<<blocks, 128, 0, stream>>>(o, i, n);
        if (impl == 12) relu_hinted<T, 2><<<blocks, 128, 0, stream>>>(o, i, n);
        if (impl == 13) relu_hinted<T, 3><<<blocks, 128, 0, stream>>>(o, i, n);
        break;
      }
      default:
        return "probe_relu: unknown impl";
    }
    return last_error();
  });
}

// op: 0 silu_and_mul, 1 gelu_and_mul, 2 fatrelu_and_mul (0.5), 3 gelu_tanh_and_mul,
//     4 silu, 5 gelu, 6 gelu_tanh, 7 gelu_quick, 8 a*b (gated, no math), 9 identity (elementwise, no math),
//     10 gelu_fast (the launcher only, impl 0: gelu_tanh_check.py), 11 mul_and_silu.
// Gated ops: rows x 2d input, rows x d output; elementwise: rows x d both.
// impl: 0 the launcher; 1 the old launcher; 2 one pack (gated: output pack) per
// thread; 3 4 per thread (gated) / 8 (elementwise); 4 16-byte packs in
// 256-thread blocks with the fast forms (ops 0, 3, 4, 6); 5 persistent grid of
// an H100's shape (gated_shape, kThreads); 6-9 128 x 1, 128 x 2, 512 x 1, 1024 x 1 (packs). The
// gelu forms (ops 1 and 5, 16-bit only), GeluPoly instead of erff: 10 256 x 1;
// 11 1024 x 1; 12 256 x 2; 13 256 x 1 converted in pairs; 14 as 13 with erff;
// 15 as 13 in 1024; 16 as 10 with fminf's clamp (a NaN becomes 0). Units of 8
// bytes: 23 one per thread in 256 threads, 24 in 512, 27 in 128, 28 two per
// thread in 256; gated only: 25 8 bytes in 1024, 26 4 bytes in 256, 22 = 7
// and 29 = 2 (their numbers in probe12a and probe14a). Older logs: 20 and 21
// (probe12) timed row splits since removed, and 23-27 in probe13 a probe-only
// kernel of the same unit shapes (a7b0e27). Elementwise only: 30 the op's own
// form in 16 bits too (float32's: expf and an IEEE division for silu and
// gelu_quick, not form_for's narrow one), one pack per thread in 128 threads;
// 31 and 32 act_triton_like (plain and .nc loads); 33 and 34 the
// launcher's kernel with one block per tile, 128 x 1 and 128 x 2; 35 the
// same kernel in Inductor's other pointwise config, two elements per thread
// in 256; 36-38 act_triton_like in 2 packs per thread (PyTorch's float32
// shape): 36 plain loads, 32-bit index; 37 .nc loads; 38 a 64-bit index;
// 39 and 40 act_torch_like (any n, the last block checked), 2 and 1 packs;
// 41 and 42 (4d20163, probe31d) timed the launcher's kernel with a 32-bit
// index, a template parameter removed then (back since 352e9ab: IdxT, for
// float32 GELU above kFloatTwoPacksUpTo packs, impl 40's shape); 43 39 with
// the whole tile's code first in the SASS; 44 39 with PyTorch's
// test (a whole tile takes the unchecked code, the last block's too); 45 and
// 46 44 launched with PDL (see Pdl): 45 waits, 46 also lets the next grid launch.
// 47 the launcher's own two-pack kernel of blocks of 128 at any size, through
// elementwise_in_blocks (4 KB blocks, so PDL where gpu_compat::launch takes
// it; PyTorch's test, GELU (erf) interleaved): what the launcher runs for
// float32 up to kFloatTwoPacksUpTo packs, at the sizes above it too (from
// probe53a to 352e9ab the launcher's float32 GELU at every size).
const char *probe_act(int impl, int op, int dtype, void *out, const void *in, int64_t rows, int64_t d,
                      void *stream_ptr) {
  namespace A = new_act;
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  const bool gated = op <= 3 || op == 8 || op == 11;
  const auto kind = static_cast<A::activation_gpu::ScalarKind>(dtype == 0 ? 0 : dtype + 1);
  if (impl == 0 && (op <= 3 || op == 11)) {
    return A::activation_gpu::launch_gated(static_cast<A::activation_gpu::GatedOp>(op == 0    ? 0
                                                                                   : op == 11 ? 1
                                                                                   : op == 1  ? 2
                                                                                   : op == 2  ? 4
                                                                                              : 3),
                                           kind, out, in, rows, d, 0.5, stream);
  }
  if (impl == 0 && op >= 4 && op <= 7) {
    return A::activation_gpu::launch_elementwise(static_cast<A::activation_gpu::ElementwiseOp>(op == 4   ? 0
                                                                                               : op == 5 ? 1
                                                                                               : op == 6 ? 2
                                                                                                         : 4),
                                                 kind, out, in, rows * d, stream);
  }
  if (op == 10) {
    if (impl != 0) return "probe_act: gelu_fast runs only in the launcher (impl 0)";
    return A::activation_gpu::launch_elementwise(A::activation_gpu::ElementwiseOp::kGeluFast, kind, out, in, rows * d,
                                                 stream);
  }
#if defined(PROBE_OLD)
  if (impl == 1 && op <= 3) {
    return old_act::activation_gpu::launch_gated(
        static_cast<old_act::activation_gpu::GatedOp>(op == 0   ? 0
                                                      : op == 1 ? 2
                                                      : op == 2 ? 4
                                                                : 3),
        static_cast<old_act::activation_gpu::ScalarKind>(dtype == 0 ? 0 : dtype + 1), out, in, rows, d, 0.5, stream);
  }
  if (impl == 1 && op >= 4 && op <= 7) {
    return old_act::activation_gpu::launch_elementwise(
        static_cast<old_act::activation_gpu::ElementwiseOp>(op == 4   ? 0
                                                            : op == 5 ? 1
                                                            : op == 6 ? 2
                                                                      : 4),
        static_cast<old_act::activation_gpu::ScalarKind>(dtype == 0 ? 0 : dtype + 1), out, in, rows * d, stream);
  }
#endif
  return with_dtype<A::gpu_compat::Half, A::gpu_compat::BFloat16>(dtype, [&](auto tag) -> const char * {
    using T = decltype(tag);
    using P = A::Pack<T>;
    T *o = static_cast<T *>(out);
    const T *i = static_cast<const T *>(in);
    if (gated) {
      const uint32_t dp = static_cast<uint32_t>(d / P::kSize);
      const uint32_t r = static_cast<uint32_t>(rows);
      // `units` units per thread of `unit_bytes` each (the kernel's kUnitBytes)
      auto go = [&](auto kernel, int units, bool persistent, auto gate, int threads = 256, int unit_bytes = 16) {
        const uint32_t du = static_cast<uint32_t>(d / (unit_bytes / static_cast<int>(sizeof(T))));
        const int64_t tiles = std::max<int64_t>((rows * du + threads * units - 1) / (threads * units), 1);
        const int64_t cap = persistent ? int64_t(sms()) * resident(kernel, threads) : INT_MAX;
        kernel<<<static_cast<unsigned>(std::min(tiles, cap)), threads, 0, stream>>>(o, i, r, du, gate);
        return last_error();
      };
      auto shapes = [&](auto op) -> const char * {
        const auto gate = A::form_for<T>(op);  // the launcher's form for T (GELU's narrow one in 16 bits)
        using G = std::remove_const_t<decltype(gate)>;
        switch (impl) {
          case 0:
          case 5: {  // an H100's shape, gated_shape (5: in a persistent grid; 0 comes here for op 8 only)
            constexpr A::GatedShape kShape = A::gated_shape<T, decltype(op)>();
            return go(A::gated_kernel<T, G, uint32_t, kShape.unit_bytes, kShape.threads, A::kGatedPerThread>,
                      A::kGatedPerThread, impl == 5, gate, kShape.threads, kShape.unit_bytes);
          }
          case 2:
          case 29:  // 16-byte packs in 256-thread blocks (29 in probe14a)
            return go(A::gated_kernel<T, G, uint32_t, 16, 256, 1>, 1, false, gate);
          case 3:
            return go(A::gated_kernel<T, G, uint32_t, 16, 256, 4>, 4, false, gate);
          case 6:
            return go(A::gated_kernel<T, G, uint32_t, 16, 128, 1>, 1, false, gate, 128);
          case 7:
          case 22:  // 128 threads x 2 packs: Inductor's 4-warp config for float32 silu_and_mul (22 in probe12a)
            return go(A::gated_kernel<T, G, uint32_t, 16, 128, 2>, 2, false, gate, 128);
          case 8:
            return go(A::gated_kernel<T, G, uint32_t, 16, 512, 1>, 1, false, gate, 512);
          case 9:
            return go(A::gated_kernel<T, G, uint32_t, 16, 1024, 1>, 1, false, gate, 1024);
          case 23:
            return go(A::gated_kernel<T, G, uint32_t, 8, 256, 1>, 1, false, gate, 256, 8);
          case 24:
            return go(A::gated_kernel<T, G, uint32_t, 8, 512, 1>, 1, false, gate, 512, 8);
          case 25:
            return go(A::gated_kernel<T, G, uint32_t, 8, 1024, 1>, 1, false, gate, 1024, 8);
          case 26:
            return go(A::gated_kernel<T, G, uint32_t, 4, 256, 1>, 1, false, gate, 256, 4);
          case 27:
            return go(A::gated_kernel<T, G, uint32_t, 8, 128, 1>, 1, false, gate, 128, 8);
          case 28:
            return go(A::gated_kernel<T, G, uint32_t, 8, 256, 2>, 2, false, gate, 256, 8);
          default:
            return "probe_act: unknown impl";
        }
      };
      if (impl >= 10 && impl <= 19) {  // the gelu_and_mul forms (op 1), see probe_act's comment
        if (op != 1) return "probe_act: no such form";
        if constexpr (std::is_same_v<T, float>) {
          return "probe_act: 16-bit only";
        } else {
          using PolyMul = FastAndMul<GeluPoly>;
          const unsigned b256 = static_cast<unsigned>((rows * dp + 255) / 256);
          const unsigned b1024 = static_cast<unsigned>((rows * dp + 1023) / 1024);
          switch (impl) {
            case 10:
              return go(A::gated_kernel<T, PolyMul, uint32_t, 16, 256, 1>, 1, false, PolyMul());
            case 11:
              return go(A::gated_kernel<T, PolyMul, uint32_t, 16, 1024, 1>, 1, false, PolyMul(), 1024);
            case 12:
              return go(A::gated_kernel<T, PolyMul, uint32_t, 16, 256, 2>, 2, false, PolyMul());
            case 13:
              gated_pairs<T, GeluPoly, 256><<<b256, 256, 0, stream>>>(o, i, r, dp, GeluPoly());
              return last_error();
            case 14:
              gated_pairs<T, A::activation::GeluErf, 256>
                  <<<b256, 256, 0, stream>>>(o, i, r, dp, A::activation::GeluErf());
              return last_error();
            case 15:
              gated_pairs<T, GeluPoly, 1024><<<b1024, 1024, 0, stream>>>(o, i, r, dp, GeluPoly());
              return last_error();
            case 16:
              return go(A::gated_kernel<T, FastAndMul<GeluPolyT<false>>, uint32_t, 16, 256, 1>, 1, false,
                        FastAndMul<GeluPolyT<false>>());
            default:
              return "probe_act: unknown impl";
          }
        }
      }
      if (impl == 4) {
        if (op == 0)
          return go(A::gated_kernel<T, FastAndMul<SiluFast>, uint32_t, 16, 256, A::kGatedPerThread>, A::kGatedPerThread,
                    false, FastAndMul<SiluFast>());
        if (op == 3)
          return go(A::gated_kernel<T, FastAndMul<GeluTanhFast>, uint32_t, 16, 256, A::kGatedPerThread>,
                    A::kGatedPerThread, false, FastAndMul<GeluTanhFast>());
        return "probe_act: no fast form";
      }
      switch (op) {
        case 0:
          return shapes(A::activation::SiluAndMul());
        case 1:
          return shapes(A::activation::GeluAndMul());
        case 2:
          return shapes(A::activation::FatReluAndMul{0.5});
        case 3:
          return shapes(A::activation::GeluTanhAndMul());
        case 11:
          return shapes(A::activation::MulAndSilu());
        default:
          return shapes(MulGate());
      }
    }
    const int64_t n = rows * d;
    auto go = [&](auto kernel, int units, bool persistent, auto act, int threads = 256, int unit_bytes = 16) {
      const int64_t elems = unit_bytes / static_cast<int>(sizeof(T));
      const int64_t tiles = std::max<int64_t>((n / elems + threads * units - 1) / (threads * units), 1);
      const int64_t cap = persistent ? int64_t(sms()) * resident(kernel, threads) : INT_MAX;
      kernel<<<static_cast<unsigned>(std::min(tiles, cap)), threads, 0, stream>>>(o, i, n, act);
      return last_error();
    };
    auto shapes = [&](auto op) -> const char * {
      const auto act = A::form_for<T>(op);
      using F = std::remove_const_t<decltype(act)>;
      switch (impl) {
        case 0:
          return go(A::elementwise_kernel<T, F, A::kPackBytes, A::kThreads, A::kPerThread>, A::kPerThread, false, act,
                    A::kThreads);
        case 2:
          return go(A::elementwise_kernel<T, F, 16, 256, 1>, 1, false, act);
        case 3:
          return go(A::elementwise_kernel<T, F, 16, 256, 8>, 8, false, act);
        case 5:
          return go(A::elementwise_kernel<T, F, A::kPackBytes, A::kThreads, A::kPerThread>, A::kPerThread, true, act,
                    A::kThreads);
        case 6:
          return go(A::elementwise_kernel<T, F, 16, 128, 1>, 1, false, act, 128);
        case 7:
          return go(A::elementwise_kernel<T, F, 16, 128, 2>, 2, false, act, 128);
        case 8:
          return go(A::elementwise_kernel<T, F, 16, 512, 1>, 1, false, act, 512);
        case 9:
          return go(A::elementwise_kernel<T, F, 16, 1024, 1>, 1, false, act, 1024);
        case 23:
          return go(A::elementwise_kernel<T, F, 8, 256, 1>, 1, false, act, 256, 8);
        case 24:
          return go(A::elementwise_kernel<T, F, 8, 512, 1>, 1, false, act, 512, 8);
        case 27:
          return go(A::elementwise_kernel<T, F, 8, 128, 1>, 1, false, act, 128, 8);
        case 28:
          return go(A::elementwise_kernel<T, F, 8, 256, 2>, 2, false, act, 256, 8);
        case 30:  // the op's own form (float32's: silu and gelu_quick with expf and an IEEE division) in 16 bits
          return go(A::elementwise_kernel<T, decltype(op), 16, 128, 1>, 1, false, op, 128);
        case 33:  // one block per tile (elementwise_kernel without kGridStride), 128 x 1
          return go(A::elementwise_kernel<T, F, 16, 128, 1, false>, 1, false, act, 128);
        case 34:  // the same, 128 x 2
          return go(A::elementwise_kernel<T, F, 16, 128, 2, false>, 2, false, act, 128);
        case 35:  // Inductor's other pointwise config (XBLOCK 512 in 8 warps): two elements per thread, blocks
                  // of 256, one block per tile
          if constexpr (sizeof(T) == 2) {
            return go(A::elementwise_kernel<T, F, 4, 256, 1, false>, 1, false, act, 256, 4);
          } else {
            return go(A::elementwise_kernel<T, F, 8, 256, 1, false>, 1, false, act, 256, 8);
          }
        case 31:    // act_triton_like, a plain load
        case 32: {  // act_triton_like, the load through the restrict pointer (.nc)
          constexpr int64_t kTile = 128 * (16 / sizeof(T));
          if (n % kTile != 0) return "probe_act: 31/32 need n a multiple of 128 packs";
          const unsigned blocks = static_cast<unsigned>(n / kTile);
          if (impl == 31) {
            act_triton_like<T, F, 128, true><<<blocks, 128, 0, stream>>>(o, i, act);
          } else {
            act_triton_like<T, F, 128, false><<<blocks, 128, 0, stream>>>(o, i, act);
          }
          return last_error();
        }
        case 36:    // act_triton_like, 2 packs per thread, plain loads, unsigned 32-bit index (PyTorch's shape)
        case 37:    // the same with .nc loads
        case 38: {  // 36 with a 64-bit index
          constexpr int64_t kTile = 2 * 128 * (16 / sizeof(T));
          if (n % kTile != 0) return "probe_act: 36-38 need n a multiple of 256 packs";
          if (n / (16 / sizeof(T)) > INT32_MAX) return "probe_act: 36-38 need fewer than 2^31 packs";
          const unsigned blocks = static_cast<unsigned>(n / kTile);
          auto kernel = impl == 36   ? act_triton_like<T, F, 128, true, 2, uint32_t>
                        : impl == 37 ? act_triton_like<T, F, 128, false, 2, uint32_t>
                                     : act_triton_like<T, F, 128, true, 2, int64_t>;
          kernel<<<blocks, 128, 0, stream>>>(o, i, act);
          return last_error();
        }
        case 39:    // act_torch_like, 2 packs per thread: 36 for any n (the last block checked)
        case 40:    // the same in 1 pack (as 31 for any n, but a 32-bit index)
        case 43:    // 39 with the whole tile's code first
        case 44:    // 39 with PyTorch's test (the last block takes the whole tile's code when its tile is whole)
        case 45:    // 44 launched with PDL, waiting for the grid before it first
        case 46: {  // 45, letting the grid after it launch at once
          const int units = impl == 40 ? 1 : 2;
          const int64_t packs = n / (16 / static_cast<int64_t>(sizeof(T)));
          if (n > INT32_MAX) return "probe_act: 39, 40 and 43-46 need fewer than 2^31 elements";
          const unsigned blocks =
              static_cast<unsigned>(std::max<int64_t>((packs + 128 * units - 1) / (128 * units), 1));
          if (impl == 45 || impl == 46) {
            cudaLaunchConfig_t config = {};
            config.gridDim = dim3(blocks);
            config.blockDim = dim3(128);
            config.stream = stream;
            cudaLaunchAttribute attribute[1];
            attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attribute[0].val.programmaticStreamSerializationAllowed = 1;
            config.attrs = attribute;
            config.numAttrs = 1;
            auto kernel = impl == 45 ? act_torch_like<T, F, 128, 2, TorchLikeTest::kTileWhole, Pdl::kWait>
                                     : act_torch_like<T, F, 128, 2, TorchLikeTest::kTileWhole, Pdl::kWaitEarly>;
            const cudaError_t error = cudaLaunchKernelEx(&config, kernel, o, i, static_cast<uint32_t>(n), act);
            if (error != cudaSuccess) {
              (void)cudaGetLastError();  // reported here
              return cudaGetErrorString(error);
            }
            return last_error();
          }
          auto kernel = impl == 39   ? act_torch_like<T, F, 128, 2>
                        : impl == 40 ? act_torch_like<T, F, 128, 1>
                        : impl == 43 ? act_torch_like<T, F, 128, 2, TorchLikeTest::kLastBlockWholeFirst>
                                     : act_torch_like<T, F, 128, 2, TorchLikeTest::kTileWhole>;
          kernel<<<blocks, 128, 0, stream>>>(o, i, static_cast<uint32_t>(n), act);
          return last_error();
        }
        case 47: {
          constexpr A::TileTest kTest =
              std::is_same_v<F, A::activation::GeluErf> ? A::TileTest::kWholeTileInterleaved : A::TileTest::kWholeTile;
          if (!A::one_block_per_tile<128, 2>(n / A::Pack<T>::kSize)) return "probe_act: 47 needs a block per tile";
          return A::elementwise_in_blocks<T, F, 128, 2, false, kTest>(o, i, n, act, stream);
        }
        default:
          return "probe_act: unknown impl";
      }
    };
    if (impl >= 10 && impl <= 19) {  // the gelu forms (op 5)
      if (op != 5) return "probe_act: no such form";
      if constexpr (std::is_same_v<T, float>) {
        return "probe_act: 16-bit only";
      } else {
        const unsigned b256 = static_cast<unsigned>((n / 8 + 255) / 256);
        const unsigned b1024 = static_cast<unsigned>((n / 8 + 1023) / 1024);
        switch (impl) {
          case 10:
            return go(A::elementwise_kernel<T, GeluPoly, 16, 256, 1>, 1, false, GeluPoly());
          case 11:
            return go(A::elementwise_kernel<T, GeluPoly, 16, 1024, 1>, 1, false, GeluPoly(), 1024);
          case 12:
            return go(A::elementwise_kernel<T, GeluPoly, 16, 256, 2>, 2, false, GeluPoly());
          case 13:
            act_pairs<T, GeluPoly, 256><<<b256, 256, 0, stream>>>(o, i, n, GeluPoly());
            return last_error();
          case 14:
            act_pairs<T, A::activation::GeluErf, 256><<<b256, 256, 0, stream>>>(o, i, n, A::activation::GeluErf());
            return last_error();
          case 15:
            act_pairs<T, GeluPoly, 1024><<<b1024, 1024, 0, stream>>>(o, i, n, GeluPoly());
            return last_error();
          case 16:
            return go(A::elementwise_kernel<T, GeluPolyT<false>, 16, 256, 1>, 1, false, GeluPolyT<false>());
          default:
            return "probe_act: unknown impl";
        }
      }
    }
    if (impl == 4) {
      if (op == 4)
        return go(A::elementwise_kernel<T, SiluFast, 16, 256, A::kPerThread>, A::kPerThread, false, SiluFast());
      if (op == 6)
        return go(A::elementwise_kernel<T, GeluTanhFast, 16, 256, A::kPerThread>, A::kPerThread, false, GeluTanhFast());
      return "probe_act: no fast form";
    }
    switch (op) {
      case 4:
        return shapes(A::activation::Silu());
      case 5:
        return shapes(A::activation::GeluErf());
      case 6:
        return shapes(A::activation::GeluTanh());
      case 7:
        return shapes(A::activation::GeluQuick());
      default:
        return shapes(Identity());
    }
  });
}

// impl: 0 the launcher; 1 the old launcher; 2 8 packs per thread; 3 2 per
// thread; 4 persistent grid (resident blocks) of the launcher's shape.
const char *probe_rms(int impl, int dtype, void *out, const void *in, const void *weight, int64_t rows, int d,
                      double eps, void *stream_ptr) {
  auto stream = static_cast<cudaStream_t>(stream_ptr);
  if (impl == 0) {
    return new_rms::rms_norm_gpu::launch_rms_norm(
        static_cast<new_rms::rms_norm_gpu::ScalarKind>(dtype == 0 ? 0 : dtype + 1), out, in, weight, rows, d, eps,
        stream);
  }
#if defined(PROBE_OLD)
  if (impl == 1) {
    return old_rms::rms_norm_gpu::launch_rms_norm(
        static_cast<old_rms::rms_norm_gpu::ScalarKind>(dtype == 0 ? 0 : dtype + 1), out, in, weight, rows, d, eps,
        stream);
  }
#endif
  return with_dtype<new_rms::gpu_compat::Half, new_rms::gpu_compat::BFloat16>(dtype, [&](auto tag) -> const char * {
    using T = decltype(tag);
    using P = new_rms::Pack<T>;
    T *o = static_cast<T *>(out);
    const T *i = static_cast<const T *>(in);
    const T *w = static_cast<const T *>(weight);
    const int width = d / P::kSize;
    auto go = [&](auto kernel, int units, bool persistent) {
      const int threads = new_rms::threads_for(width, units);
      const int64_t cap = persistent ? int64_t(sms()) * resident(kernel, threads) : INT_MAX;
      kernel<<<static_cast<unsigned>(std::min<int64_t>(rows, cap)), threads, 0, stream>>>(o, i, w, rows, d,
                                                                                          static_cast<float>(eps));
      return last_error();
    };
    if (impl >= 600) {  // two loops, L1 eviction priorities as Triton's (first loop, second, weight):
                        // 601 2 packs x 512 (last, first, last); 602 4 x 512; 603 4 x 256; 604 2 x 512 (last, -, last);
                        // 61X Triton's form in 8-byte units, 621-622 in 16-byte ones (rms_two_loops with policies 5, 6,
                        // 5), 623-624 with Inductor's static shape (rms_static); 625-626 the launcher's two-loop kernel
                        // for whole chunks without and with its checks (no minimum of blocks per SM; in
                        // probe29a's build a minimum of 1 and a sum per slot in both);
                        // 641-642 with and without them at kTwoLoopBlocksPerSm; 631-634
                        // the launcher's two-loop
                        // kernel (631-632) and rms_static's (633-634) at most 3 / 2 blocks per SM
      auto two = [&](auto kernel, int threads) {
        kernel<<<static_cast<unsigned>(std::min<int64_t>(rows, INT_MAX)), threads, 0, stream>>>(
            o, i, w, rows, d, static_cast<float>(eps));
        return last_error();
      };
      switch (impl) {
        case 601:
          return two(rms_two_loops<T, 2, 3, 4, 3>, 512);
        case 602:
          return two(rms_two_loops<T, 4, 3, 4, 3>, 512);
        case 603:
          return two(rms_two_loops<T, 4, 3, 4, 3>, 256);
        case 604:
          return two(rms_two_loops<T, 2, 3, 0, 3>, 512);
        case 611:  // the captured PTX's shape: 4 8-byte units x 512 threads (16-bit; float32 two chunks)
          return two(rms_two_loops<T, 4, 5, 6, 5, 8>, 512);
        case 612:  // 8 x 512 (float32's row in one chunk)
          return two(rms_two_loops<T, 8, 5, 6, 5, 8>, 512);
        case 613:  // 4 x 1024
          return two(rms_two_loops<T, 4, 5, 6, 5, 8>, 1024);
        case 614:  // 2 x 1024
          return two(rms_two_loops<T, 2, 5, 6, 5, 8>, 1024);
        case 621:  // Inductor's kernel as Triton 3.6 compiles it: 16-byte units, 512 threads, the row in one
                   // chunk (2 units in 16-bit, 4 in float32), launch bounds of 512
          if constexpr (sizeof(T) == 4) {
            return two(rms_two_loops<T, 4, 5, 6, 5, 16, 512>, 512);
          } else {
            return two(rms_two_loops<T, 2, 5, 6, 5, 16, 512>, 512);
          }
        case 623:    // rms_static, two loops: 512 threads, the row in one chunk (d = 8192 in 16 bits or float32 only)
        case 624: {  // rms_static, one pass
          constexpr int kUnits = sizeof(T) == 4 ? 4 : 2;
          if (d != 512 * kUnits * P::kSize) return "probe_rms: 623/624 need d = 8192 (--sizes large)";
          const float inv_d = static_cast<float>(1.0 / d);
          if (impl == 623) {
            rms_static<T, kUnits, true>
                <<<static_cast<unsigned>(rows), 512, 0, stream>>>(o, i, w, inv_d, static_cast<float>(eps));
          } else {
            rms_static<T, kUnits, false>
                <<<static_cast<unsigned>(rows), 512, 0, stream>>>(o, i, w, inv_d, static_cast<float>(eps));
          }
          return last_error();
        }
        case 625:    // the launcher's two-loop kernel for rows of whole chunks: no clamp, no bounds check
        case 626:    // the same kernel with them (as the launcher runs rows not of whole chunks)
        case 641:    // 626 at the launch bounds' minimum of blocks per SM (kTwoLoopBlocksPerSm)
        case 642: {  // 625 at that minimum (as the launcher runs rows of whole chunks)
          constexpr int kUnits = sizeof(T) == 4 ? 4 : 2;
          constexpr int kBlocks = new_rms::kTwoLoopBlocksPerSm<T>;
          if (d % (512 * kUnits * P::kSize) != 0)
            return "probe_rms: 625/626/641/642 need d a multiple of 512 threads' chunk";
          auto kernel = impl == 625   ? new_rms::rms_norm_two_loop_kernel<T, kUnits, true>
                        : impl == 626 ? new_rms::rms_norm_two_loop_kernel<T, kUnits, false>
                        : impl == 642 ? new_rms::rms_norm_two_loop_kernel<T, kUnits, true, kBlocks>
                                      : new_rms::rms_norm_two_loop_kernel<T, kUnits, false, kBlocks>;
          kernel<<<static_cast<unsigned>(rows), 512, 0, stream>>>(o, i, w, d, static_cast<float>(1.0 / d),
                                                                  static_cast<float>(eps));
          return last_error();
        }
        case 631:    // the launcher's two-loop kernel, at most 3 blocks per SM (dynamic shared memory)
        case 632:    // at most 2
        case 633:    // rms_static two loops, at most 3 blocks per SM
        case 634: {  // rms_static two loops, at most 2
          constexpr int kUnits = sizeof(T) == 4 ? 4 : 2;
          if (impl >= 633 && d != 512 * kUnits * P::kSize) return "probe_rms: 633/634 need d = 8192 (--sizes large)";
          if (d % P::kSize != 0) return "probe_rms: 631-634 need whole packs";
          const int max_blocks = impl % 2 == 1 ? 3 : 2;
          if (impl <= 632) {
            auto kernel = new_rms::rms_norm_two_loop_kernel<T, kUnits>;
            const int threads = std::min(512, new_rms::threads_for(d / P::kSize, kUnits));
            const size_t smem = smem_for_blocks(kernel, threads, max_blocks);
            kernel<<<static_cast<unsigned>(rows), threads, smem, stream>>>(o, i, w, d, static_cast<float>(1.0 / d),
                                                                           static_cast<float>(eps));
          } else {
            auto kernel = rms_static<T, kUnits, true>;
            const size_t smem = smem_for_blocks(kernel, 512, max_blocks);
            kernel<<<static_cast<unsigned>(rows), 512, smem, stream>>>(o, i, w, static_cast<float>(1.0 / d),
                                                                       static_cast<float>(eps));
          }
          return last_error();
        }
        case 622:  // as 621 with launch bounds of 1024
          if constexpr (sizeof(T) == 4) {
            return two(rms_two_loops<T, 4, 5, 6, 5, 16>, 512);
          } else {
            return two(rms_two_loops<T, 2, 5, 6, 5, 16>, 512);
          }
        default:
          return "probe_rms: unknown impl";
      }
    }
    if (impl >= 500) {  // 501 one-pass 2 packs, weight evict_last; 51X two loops: 510 4 packs x 256 no row hints,
                        // 511 8 x 128, 512 4 x 256 second loop no hint, 513 2 x 512 no row
                        // hints (the weight evict_last in all)
      auto hinted = [&](auto kernel, int threads) {
        kernel<<<static_cast<unsigned>(std::min<int64_t>(rows, INT_MAX)), threads, 0, stream>>>(
            o, i, w, rows, d, static_cast<float>(eps));
        return last_error();
      };
      switch (impl) {
        case 501:
          return hinted(rms_hinted<T, 2, 0, 2, 0>, new_rms::threads_for(width, 2));
        case 510:
          return hinted(rms_two_loops<T, 4, 0, 0>, 256);
        case 511:
          return hinted(rms_two_loops<T, 8, 2, 1>, 128);
        case 512:
          return hinted(rms_two_loops<T, 4, 2, 0>, 256);
        case 513:
          return hinted(rms_two_loops<T, 2, 0, 0>, 512);
        default:
          return "probe_rms: unknown impl";
      }
    }
    if (impl >= 400) {  // 40M / 41M / 42M: lean one-pass, 4 / 8 / 2 packs, M: 0 none, 1 6 (4 packs) / 10 (8) /
                        // 3 (2) blocks min, 2 8 / 12 / 4; 43U: pipelined over rows, U packs (2, 4, 8), resident grid
      auto lean = [&](auto kernel, int units) {
        kernel<<<static_cast<unsigned>(std::min<int64_t>(rows, INT_MAX)), new_rms::threads_for(width, units), 0,
                 stream>>>(o, i, w, rows, d, static_cast<float>(eps));
        return last_error();
      };
      auto pipelined = [&](auto kernel, int units) {
        const int threads = new_rms::threads_for(width, units);
        const int64_t cap = int64_t(sms()) * resident(kernel, threads);
        kernel<<<static_cast<unsigned>(std::min<int64_t>(rows, cap)), threads, 0, stream>>>(o, i, w, rows, d,
                                                                                            static_cast<float>(eps));
        return last_error();
      };
      switch (impl) {
        case 400:
          return lean(rms_lean<T, 4, 0>, 4);
        case 401:
          return lean(rms_lean<T, 4, 6>, 4);
        case 402:
          return lean(rms_lean<T, 4, 8>, 4);
        case 410:
          return lean(rms_lean<T, 8, 0>, 8);
        case 411:
          return lean(rms_lean<T, 8, 10>, 8);
        case 412:
          return lean(rms_lean<T, 8, 12>, 8);
        case 420:
          return lean(rms_lean<T, 2, 0>, 2);
        case 421:
          return lean(rms_lean<T, 2, 3>, 2);
        case 422:
          return lean(rms_lean<T, 2, 4>, 2);
        case 432:
          return pipelined(rms_pipelined<T, 2>, 2);
        case 434:
          return pipelined(rms_pipelined<T, 4>, 4);
        case 438:
          return pipelined(rms_pipelined<T, 8>, 8);
        default:
          return "probe_rms: unknown impl";
      }
    }
    if (impl >= 200) {  // 2XY: hinted one-pass (4 packs), X = row policy, Y = 0 / store evict_first (1) / 3 blocks per
                        // SM (2); 3UT: two loops, U packs per thread per chunk (1, 2, 4), T * 128 threads
      auto hinted = [&](auto kernel, int threads, int max_blocks) {
        const size_t smem = smem_for_blocks(kernel, threads, max_blocks);
        kernel<<<static_cast<unsigned>(std::min<int64_t>(rows, INT_MAX)), threads, smem, stream>>>(
            o, i, w, rows, d, static_cast<float>(eps));
        return last_error();
      };
      const int t4 = new_rms::threads_for(width, 4);
      switch (impl) {
        case 200:
          return hinted(rms_hinted<T, 4, 0, 0, 0>, t4, 0);
        case 202:
          return hinted(rms_hinted<T, 4, 0, 0, 0>, t4, 3);
        case 210:
          return hinted(rms_hinted<T, 4, 1, 2, 0>, t4, 0);
        case 211:
          return hinted(rms_hinted<T, 4, 1, 2, 1>, t4, 0);
        case 212:
          return hinted(rms_hinted<T, 4, 1, 2, 0>, t4, 3);
        case 220:
          return hinted(rms_hinted<T, 4, 0, 2, 0>, t4, 0);
        case 221:
          return hinted(rms_hinted<T, 4, 0, 0, 1>, t4, 0);
        case 222:
          return hinted(rms_hinted<T, 4, 0, 2, 1>, t4, 3);
        case 312:
          return hinted(rms_two_loops<T, 1>, 256, 0);
        case 314:
          return hinted(rms_two_loops<T, 1>, 512, 0);
        case 318:
          return hinted(rms_two_loops<T, 1>, 1024, 0);
        case 322:
          return hinted(rms_two_loops<T, 2>, 256, 0);
        case 324:
          return hinted(rms_two_loops<T, 2>, 512, 0);
        case 342:
          return hinted(rms_two_loops<T, 4>, 256, 0);
        case 341:
          return hinted(rms_two_loops<T, 4>, 128, 0);
        default:
          return "probe_rms: unknown impl";
      }
    }
    if (impl >= 100) {  // 100 + 10 * units (0: 2, 1: 4, 2: 8) + most blocks per SM (0: any)
      auto shaped = [&](auto kernel, int units) {
        const int threads = new_rms::threads_for(width, units);
        const size_t smem = smem_for_blocks(kernel, threads, impl % 10);
        kernel<<<static_cast<unsigned>(std::min<int64_t>(rows, INT_MAX)), threads, smem, stream>>>(
            o, i, w, rows, d, static_cast<float>(eps));
        return last_error();
      };
      switch ((impl / 10) % 10) {
        case 0:
          return shaped(new_rms::rms_norm_kernel<T, true, 2>, 2);
        case 1:
          return shaped(new_rms::rms_norm_kernel<T, true, 4>, 4);
        default:
          return shaped(new_rms::rms_norm_kernel<T, true, 8>, 8);
      }
    }
    switch (impl) {
      case 2:
        return go(new_rms::rms_norm_kernel<T, true, 8>, 8, false);
      case 3:
        return go(new_rms::rms_norm_kernel<T, true, 2>, 2, false);
      case 4:
        return go(new_rms::rms_norm_kernel<T, true, 4>, 4, true);
      case 10:
        return go(rms_probe<T, 8, true, 0>, 8, false);
      case 11:
        return go(rms_probe<T, 8, false, 0>, 8, false);
      case 12:
        return go(rms_probe<T, 4, false, 0>, 4, false);
      case 13:
        return go(rms_probe<T, 2, false, 0>, 2, false);
      case 14:
        return go(rms_probe<T, 8, false, 2>, 8, false);
      case 15:
        return go(rms_probe<T, 4, false, 2>, 4, false);
      case 16:
        return go(rms_probe<T, 8, true, 2>, 8, false);
      case 17:
        return go(rms_probe<T, 16, false, 0>, 16, false);
      case 18:
        return go(rms_probe<T, 4, true, 0>, 4, false);
      case 19:
        return go(rms_probe<T, 2, true, 0>, 2, false);
      default:
        return "probe_rms: unknown impl";
    }
  });
}

}  // extern "C"
