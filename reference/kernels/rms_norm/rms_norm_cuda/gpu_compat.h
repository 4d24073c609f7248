#pragma once

// CUDA and HIP under CUDA's names, for this kernel's device code: nvcc
// compiles it for cuda variants, hipcc for rocm ones (hipified by the macros
// below instead of a hipify pass). No Torch headers: the Torch glue passes raw
// pointers, sizes and a stream, and the 16-bit float types are defined here
// with Torch's layout (2 bytes of bits; arithmetic in float).

#include <atomic>
#include <cstring>

#if defined(__HIPCC__)
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#define cudaStream_t hipStream_t
#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaGetLastError hipGetLastError
#define cudaGetErrorString hipGetErrorString
#define cudaGetDevice hipGetDevice
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cudaDevAttrMemoryClockRate hipDeviceAttributeMemoryClockRate
#define cudaDevAttrGlobalMemoryBusWidth hipDeviceAttributeMemoryBusWidth
// Warps of 32 lanes: on wave64 GPUs a wavefront holds two, and the width
// keeps the butterfly inside each.
#define __shfl_xor_sync(mask, value, lane_mask) __shfl_xor((value), (lane_mask), 32)
#else
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#endif

namespace gpu_compat {

struct alignas(2) Half {
  unsigned short bits;
  Half() = default;
  __device__ explicit Half(float value) : bits(__half_as_ushort(__float2half(value))) {}
  __device__ explicit operator float() const { return __half2float(__ushort_as_half(bits)); }
};

struct alignas(2) BFloat16 {
  unsigned short bits;
  BFloat16() = default;
  // Round to nearest even, as c10::BFloat16: CUDA's conversion (one
  // instruction from sm_80 on), in integer arithmetic on HIP.
  __device__ explicit BFloat16(float value) {
#if defined(__HIPCC__)
    unsigned wide = 0;
    memcpy(&wide, &value, sizeof wide);
    bits = value != value ? 0x7FC0 : static_cast<unsigned short>((wide + 0x7FFFu + ((wide >> 16) & 1u)) >> 16);
#else
    bits = __bfloat16_as_ushort(__float2bfloat16(value));
#endif
  }
  __device__ explicit operator float() const {
    const unsigned wide = static_cast<unsigned>(bits) << 16;
    float value;
    memcpy(&value, &wide, sizeof value);
    return value;
  }
};

// The type arithmetic happens in (Torch's at::opmath_type).
template <typename T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <typename T>
using opmath_t = typename OpMath<T>::type;

// The current device's peak memory bandwidth per SM, in bytes per second:
// twice the memory clock times the bus width, over the SMs (an H100 SXM
// about 3.35e12 / 132 = 25 GB/s; an H200 4.8e12 / 132 = 36.5 GB/s, as
// roofline_probe.py prints it); 0 where the runtime does not say (its error
// cleared, so that the next launch_error() does not report it). An SM must
// keep that bandwidth times the memory's latency in flight to take its share
// (Little's law), so the launch shapes of these bandwidth-bound kernels key
// on it (issue #32).
inline double memory_bandwidth_per_sm() {
  int device = 0;
  int clock_khz = 0;
  int bus_bits = 0;
  int sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms <= 0) {
    (void)cudaGetLastError();  // cleared, not reported
    return 0;
  }
  return 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / sms;
}

// Whether the current device's memory moves more per SM than an H100's:
// over 30 GB/s per SM, between the two devices measured (an H100's 25, an
// H200's 36.5; parts in between, e.g. an H100 NVL near 29.5 or a GH200 near
// 30, were not measured). The launch shapes measured best on an H100 leave
// too few bytes in flight on an H200. And whether it takes programmatic
// dependent launches (PDL; see launch): CUDA, compute capability 9.0 on.
struct DeviceTraits {
  bool memory_outruns_h100;
  bool takes_pdl;
};

// The current device's DeviceTraits. The memory clock query asks the driver
// each time (relu at 16384 x 8192 ran 512-695 us instead of 128-252 with it
// in every launch on an H200,
// bench/results/roofline-h200-2026-11-28-probe18b.log), so the answers are
// kept per device for the process: a device does not change. Answers from
// a query that failed are not kept (no and no, asked again next time).
inline DeviceTraits device_traits() {
  constexpr int kMaxDevices = 64;
  constexpr int kAsked = 1, kFastMemory = 2, kPdl = 4;
  static std::atomic<int> answers[kMaxDevices];  // kAsked and the traits' bits per device, 0 at first
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) {
    (void)cudaGetLastError();  // cleared, not reported
    return DeviceTraits{false, false};
  }
  int answer = answers[device].load(std::memory_order_relaxed);
  if (answer == 0) {
    const double bandwidth = memory_bandwidth_per_sm();
    int major = 0;
#if defined(__HIPCC__)
    const bool asked_major = true;  // no PDL on HIP: major stays 0
#else
    const bool asked_major = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess;
#endif
    if (bandwidth <= 0 || !asked_major) {
      (void)cudaGetLastError();  // cleared, not reported
      return DeviceTraits{false, false};
    }
    answer = kAsked | (bandwidth > 30e9 ? kFastMemory : 0) | (major >= 9 ? kPdl : 0);
    answers[device].store(answer, std::memory_order_relaxed);
  }
  return DeviceTraits{(answer & kFastMemory) != 0, (answer & kPdl) != 0};
}

inline bool memory_outruns_h100() { return device_traits().memory_outruns_h100; }

// Programmatic dependent launch (PDL): launch<true>() below starts a kernel
// on a device that takes it (sm_90 on) while the grid before it in the
// stream is still finishing, instead of after. Such a kernel is
// instantiated with kOverlap true and calls enter_grid<kOverlap>() in its
// first statement: that waits for the grids before it (griddepcontrol.wait,
// ACQBULK in the SASS: it returns once they have finished and their writes
// are visible), then lets the grid after it launch in turn (held by its own
// wait). On HIP, and before sm_90, it is empty. The kernel and its launch
// take the same kOverlap, so a kernel launched with PDL always waits;
// reference/kernels/tests/sass_pdl.py checks the SASS of every kernel
// against the kOverlap in its name.
//
// On an H200 (2026-11-29, bench/results/roofline-h200-2026-11-29c-launch-split-c.log:
// probe impls 45 and 46, impl 44 with PDL) a float32 activation at 256 x
// 8192 ran 4.56 us a call with the whole batch queued, against 6.24-6.35
// launched plainly (in a CUDA graph 4.44-4.50 against 5.02-5.05), and
// 0.4-0.8% faster at 16384 x 8192 (probe32b.log).
template <bool kOverlap>
__device__ __forceinline__ void enter_grid() {
#if !defined(__HIPCC__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (kOverlap) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  }
#endif
}

// Whether a kernel whose blocks each read `block_bytes` takes PDL (its
// kOverlap): from 4 KB. The wait costs each block even in a plain launch:
// on an H200 (2026-11-29,
// bench/results/roofline-h200-2026-11-29c-summary-large-activation-pdl.md
// and -pdl4k.md) the elementwise activations in blocks reading 2 KB (one
// 16-byte pack per thread of 128; 262144 or 524288 blocks) ran at
// 0.79-0.93x the best Torch at 16384 x 16384 with it, launched with PDL or
// not, against about 1.00x without it (RESULTS.md, stop 50; their SASS
// differs by the ACQBULK and the PREEXIT of launch_dependents alone). Blocks
// of 4 KB and more did not lose: two packs per thread (GELU in 16 bits
// there, probe impl 46 in float32 at 16384 x 8192), relu's 256 threads of
// one pack (16384 x 8192 float32 1.007x), the gates, rms_norm's rows of 8192
// (bfloat16 1.014x).
constexpr bool overlaps_launches(long long block_bytes) { return block_bytes >= 4096; }

// nullptr, or the runtime's text for the last launch error.
inline const char *launch_error() {
  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? nullptr : cudaGetErrorString(error);
}

// Launches kernel(args...) on `stream` in blocks of `block` threads, no
// dynamic shared memory; with PDL where kOverlap and the device takes it
// (the kernel must be instantiated with the same kOverlap: see enter_grid).
// nullptr, or the runtime's text for the launch's error.
template <bool kOverlap, typename... Params, typename... Args>
const char *launch(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, Args... args) {
#if !defined(__HIPCC__)
  if (kOverlap && device_traits().takes_pdl) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = 0;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    const cudaError_t error = cudaLaunchKernelEx(&config, kernel, args...);
    if (error != cudaSuccess) {
      (void)cudaGetLastError();  // reported here
      return cudaGetErrorString(error);
    }
    return launch_error();
  }
#endif
  kernel<<<grid, block, 0, stream>>>(args...);
  return launch_error();
}

}  // namespace gpu_compat
