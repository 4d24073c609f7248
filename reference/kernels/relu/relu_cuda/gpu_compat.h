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
// too few bytes in flight on an H200.
// The memory clock query asks the driver each time (relu at 16384 x 8192
// ran 512-695 us instead of 128-252 with it in every launch on an H200,
// bench/results/roofline-h200-2026-11-28-probe18b.log), so the answer is
// kept per device for the process: a device's memory does not change. A
// query that fails is not kept (the H100's shapes, asked again next time).
enum MemoryAnswer : int { kNotAsked = 0, kNo = 1, kYes = 2 };
inline bool memory_outruns_h100() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> answers[kMaxDevices];  // a MemoryAnswer per device, kNotAsked at first
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) {
    (void)cudaGetLastError();  // cleared, not reported
    return false;
  }
  const int answer = answers[device].load(std::memory_order_relaxed);
  if (answer != kNotAsked) {
    return answer == kYes;
  }
  const double bandwidth = memory_bandwidth_per_sm();
  if (bandwidth <= 0) {
    return false;
  }
  const bool yes = bandwidth > 30e9;
  answers[device].store(yes ? kYes : kNo, std::memory_order_relaxed);
  return yes;
}

// nullptr, or the runtime's text for the last launch error.
inline const char *launch_error() {
  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? nullptr : cudaGetErrorString(error);
}

}  // namespace gpu_compat
