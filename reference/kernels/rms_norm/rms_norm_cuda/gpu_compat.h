#pragma once

// CUDA and HIP under CUDA's names, for this kernel's device code: nvcc
// compiles it for cuda variants, hipcc for rocm ones (hipified by the macros
// below instead of a hipify pass). No Torch headers: the Torch glue passes raw
// pointers, sizes and a stream, and the 16-bit float types are defined here
// with Torch's layout (2 bytes of bits; arithmetic in float).

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

// nullptr, or the runtime's text for the last launch error.
inline const char *launch_error() {
  const cudaError_t error = cudaGetLastError();
  return error == cudaSuccess ? nullptr : cudaGetErrorString(error);
}

}  // namespace gpu_compat
