// Kernels sass_load_order.py must report (tests/CMakeLists.txt,
// reference_sass_load_order_fires), named like the activation kernels'
// gated_kernel and elementwise_kernel, which is what the tool looks for.
// gated_kernel_split, Split and Uneven have their loads split: a later
// load's address needs the first load's value through an exp, so arithmetic
// sits between them in the SASS (Uneven's three loads also make no whole
// groups of two). Crowded takes more than 32 registers in blocks of 128 and
// in blocks of 256.
#include <type_traits>

__global__ void gated_kernel_split(float *out, const float *in) {
  const float a = in[threadIdx.x];
  const int j = static_cast<int>(expf(a) * 3.0f) & 1023;
  out[threadIdx.x] = in[j] * a;
}

// The template arguments say what the activation kernels' do: unit bytes,
// block, packs per thread. Split: two 16-byte packs, the second's address
// from the first's value. Crowded: twelve packs all live at once (48 floats).
// Uneven: three 16-byte loads in a kernel of two packs per thread, so they
// cannot be cut into whole groups; the tool takes the span from the first to
// the last, and the third's address comes from the first's value.
struct Split {};
struct Crowded {};
struct Uneven {};
template <typename T, typename Act, int kUnitBytes, int kBlock, int kUnits>
__global__ void elementwise_kernel(float4 *out, const float4 *in) {
  if constexpr (std::is_same_v<Act, Split>) {
    const float4 a = in[threadIdx.x];
    const int j = static_cast<int>(expf(a.x) * 3.0f) & 1023;
    const float4 b = in[j];
    out[threadIdx.x] = make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w);
  } else if constexpr (std::is_same_v<Act, Uneven>) {
    const float4 a = in[threadIdx.x];
    const float4 b = in[threadIdx.x + 4096];
    const int j = static_cast<int>(expf(a.x) * 3.0f) & 1023;
    const float4 c = in[j];
    out[threadIdx.x] = make_float4(a.x * b.x * c.x, a.y * b.y * c.y, a.z * b.z * c.z, a.w * b.w * c.w);
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
template __global__ void elementwise_kernel<float, Crowded, 16, 256, 12>(float4 *, const float4 *);
template __global__ void elementwise_kernel<float, Uneven, 16, 128, 2>(float4 *, const float4 *);
