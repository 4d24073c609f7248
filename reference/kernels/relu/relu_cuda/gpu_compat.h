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

// What the launchers ask of the current device (`device`, -1 when the
// runtime cannot say): whether its memory moves more per SM than an H100's,
// over 30 GB/s per SM, between the two devices measured (an H100's 25, an
// H200's 36.5; parts in between, e.g. an H100 NVL near 29.5 or a GH200 near
// 30, were not measured), since the launch shapes measured best on an H100
// leave too few bytes in flight on an H200; and whether it takes
// programmatic dependent launches (PDL, see enter_grid): CUDA, compute
// capability 9.0 on.
struct DeviceTraits {
  int device;
  bool memory_outruns_h100;
  bool takes_pdl;
};

constexpr int kMaxDevices = 64;

// The current device's DeviceTraits. The memory clock query asks the driver
// each time (relu at 16384 x 8192 ran 512-695 us instead of 128-252 with it
// in every launch on an H200,
// bench/results/roofline-h200-2026-11-28-probe18b.log), so each answer is
// kept per device for the process: a device does not change. An answer
// whose query failed is not kept (no, asked again next time).
inline DeviceTraits device_traits() {
  constexpr int kMemoryAsked = 1, kFastMemory = 2, kPdlAsked = 4, kPdl = 8;
  static std::atomic<int> answers[kMaxDevices];  // the bits above per device, 0 at first
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) {
    (void)cudaGetLastError();  // cleared, not reported
    return DeviceTraits{-1, false, false};
  }
  const int kept = answers[device].load(std::memory_order_relaxed);
  int answer = kept;
  if ((answer & kMemoryAsked) == 0) {
    const double bandwidth = memory_bandwidth_per_sm();
    if (bandwidth > 0) {
      answer |= kMemoryAsked | (bandwidth > 30e9 ? kFastMemory : 0);
    }
  }
  if ((answer & kPdlAsked) == 0) {
#if defined(__HIPCC__)
    answer |= kPdlAsked;  // no PDL on HIP
#else
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess) {
      answer |= kPdlAsked | (major >= 9 ? kPdl : 0);
    } else {
      (void)cudaGetLastError();  // cleared, not reported
    }
#endif
  }
  if (answer != kept) {
    answers[device].fetch_or(answer, std::memory_order_relaxed);  // racing callers add the same bits
  }
  return DeviceTraits{device, (answer & kFastMemory) != 0, (answer & kPdl) != 0};
}

inline bool memory_outruns_h100() { return device_traits().memory_outruns_h100; }

// Programmatic dependent launch (PDL): launch<true, kKernel>() below starts
// a kernel on a device that takes it (sm_90 on) while the kernel before it
// in the stream is still finishing, instead of after. Such a kernel is
// instantiated with kOverlap true and calls enter_grid<kOverlap>() in its
// first statement. That waits for the grid before it (griddepcontrol.wait,
// ACQBULK in the SASS: it returns once that grid has finished and its
// writes are visible; earlier work is covered because that grid itself
// started after it, or waited, as these kernels do: a PDL kernel of
// someone else's that never waits would break the chain), then lets the
// grid after it launch in turn, held by its own wait: at most two grids
// overlap. Copies, events and plain launches keep the stream's full order.
// On HIP, and in code compiled for targets before sm_90, enter_grid is
// empty; launch() uses PDL only for a kernel whose code on the device was
// compiled from sm_90 PTX or newer (waits_on_device). The launcher writes
// kOverlap once and gives it to both the kernel's template and launch();
// reference/kernels/tests/sass_pdl.py checks each kernel's SASS against the
// kOverlap in its name.
//
// On an H200 (2026-11-29, bench/results/roofline-h200-2026-11-29c-launch-split-c.log:
// probe impls 45 and 46, impl 44 with PDL), calls of a float32 activation
// at 256 x 8192 back to back ran 4.56 us each with the whole batch queued,
// against 6.25-6.49 for impl 44 launched plainly (in a CUDA graph 4.44-4.50
// against 5.02-5.05), and 0.7% faster at 16384 x 8192 (probe32b.log). After
// a plain kernel, e.g. Torch's, only the launch's own processing overlaps.
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
// kOverlap): from 4 KB. On an H200 (2026-11-29,
// bench/results/roofline-h200-2026-11-29c-summary-large-activation-pdl.md
// and -pdl4k.md, one run each) the elementwise activations in blocks that
// read 2 KB (one 16-byte pack per thread of 128; 262144 or 524288 blocks)
// ran at 0.79-0.93x the best Torch at 16384 x 16384 with the wait, launched
// with PDL or not, against about 1.00x in stop 50's runs without it
// (their SASS differs by the ACQBULK and the PREEXIT of the trigger alone).
// Without the wait (87db455) they ran at 0.993-1.175x again, and blocks of
// 4 KB and more with it did not lose: two packs per thread (GELU in 16
// bits), relu's 256 threads of one pack (16384 x 8192 float32 1.008x),
// the gates (1.007-1.168x), rms_norm's rows of 8192 (bfloat16 1.014x;
// five runs each, -29d-summary-large-all-1-5.md). Not measured on an H100,
// whose elementwise blocks of 256 threads read 4 KB.
constexpr bool overlaps_launches(long long block_bytes) { return block_bytes >= 4096; }

// nullptr, or the runtime's text for the last launch error.
inline const char *launch_error() {
  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? nullptr : cudaGetErrorString(error);
}

#if !defined(__HIPCC__)
// Whether kKernel's code on `device` was compiled from PTX for sm_90 or
// newer, so that its enter_grid waits: code JIT-compiled from an older
// target's PTX (a build for 8.0+PTX run on an H100, say) has no wait and
// must not start early. Kept per kernel and device; a failed query is not
// kept (no).
template <auto kKernel>
bool waits_on_device(int device) {
  static std::atomic<int> answers[kMaxDevices];  // 0 not asked, 1 no, 2 yes
  if (device < 0 || device >= kMaxDevices) {
    return false;
  }
  const int answer = answers[device].load(std::memory_order_relaxed);
  if (answer != 0) {
    return answer == 2;
  }
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, kKernel) != cudaSuccess) {
    (void)cudaGetLastError();  // cleared, not reported
    return false;
  }
  const bool waits = attributes.ptxVersion >= 90;
  answers[device].store(waits ? 2 : 1, std::memory_order_relaxed);
  return waits;
}
#endif

// Launches kKernel(args...) on `stream` in blocks of `block` threads, no
// dynamic shared memory; with PDL where kOverlap, the device takes it and
// the kernel's code waits (kKernel must be instantiated with the same
// kOverlap: see enter_grid); plainly if the runtime refuses PDL. nullptr,
// or the runtime's text for the launch's error.
template <bool kOverlap, auto kKernel, typename... Args>
const char *launch(dim3 grid, dim3 block, cudaStream_t stream, Args... args) {
#if !defined(__HIPCC__)
  if constexpr (kOverlap) {
    const DeviceTraits traits = device_traits();
    if (traits.takes_pdl && waits_on_device<kKernel>(traits.device)) {
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
      if (cudaLaunchKernelEx(&config, kKernel, args...) == cudaSuccess) {
        return launch_error();
      }
      (void)cudaGetLastError();  // refused: launched plainly below, whose error is reported
    }
  }
#endif
  kKernel<<<grid, block, 0, stream>>>(args...);
  return launch_error();
}

}  // namespace gpu_compat
