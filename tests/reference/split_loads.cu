// Kernels sass_load_order.py must report (tests/CMakeLists.txt,
// reference_sass_load_order_fires), named like the activation kernels'
// gated_kernel and elementwise_kernel, which is what the tool looks for.
// The first two have their loads split: each one's second load's address
// needs the first load's value through an exp, so arithmetic sits between
// them in the SASS. The third takes more than 32 registers in blocks of 128.
#include <type_traits>

__global__ void gated_kernel_split(float *out, const float *in) {
  const float a = in[threadIdx.x];
  const int j = static_cast<int>(expf(a) * 3.0f) & 1023;
  out[threadIdx.x] = in[j] * a;
}

// The template arguments say what the activation kernels' do: unit bytes,
// block, packs per thread. Split: two 16-byte packs, the second's address
// from the first's value. Crowded: twelve packs all live at once (48 floats).
struct Split {};
struct Crowded {};
template <typename T, typename Act, int kUnitBytes, int kBlock, int kUnits>
__global__ void elementwise_kernel(float4 *out, const float4 *in) {
  if constexpr (std::is_same_v<Act, Split>) {
    const float4 a = in[threadIdx.x];
    const int j = static_cast<int>(expf(a.x) * 3.0f) & 1023;
    const float4 b = in[j];
    out[threadIdx.x] = make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w);
  } else {
    float4 v[12];
#pragma unroll
    for (int k = 0; k < 12; ++k) v[k] = in[threadIdx.x + k * 4096];
#pragma unroll
    for (int k = 0; k < 12; ++k) {
      const float4 w = v[(k + 5) % 12];
      out[threadIdx.x + k * 4096] = make_float4(v[k].x * w.w, v[k].y * w.z, v[k].z * w.y, v[k].w * w.x);
    }
  }
}
template __global__ void elementwise_kernel<float, Split, 16, 128, 2>(float4 *, const float4 *);
template __global__ void elementwise_kernel<float, Crowded, 16, 128, 12>(float4 *, const float4 *);
