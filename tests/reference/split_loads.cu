// Kernels whose loads sass_load_order.py must report as split: each one's
// second load's address needs the first load's value through an exp, so
// arithmetic sits between them in the SASS (tests/CMakeLists.txt,
// reference_sass_load_order_fires). Named like the activation kernels'
// gated_kernel and elementwise_kernel, which is what the tool looks for.
__global__ void gated_kernel_split(float *out, const float *in) {
  const float a = in[threadIdx.x];
  const int j = static_cast<int>(expf(a) * 3.0f) & 1023;
  out[threadIdx.x] = in[j] * a;
}

// Two 16-byte packs per thread (the template arguments say so, as the
// activation kernels' do: unit bytes, block, packs per thread).
struct Op {};
template <typename T, typename Act, int kUnitBytes, int kBlock, int kUnits>
__global__ void elementwise_kernel(float4 *out, const float4 *in) {
  const float4 a = in[threadIdx.x];
  const int j = static_cast<int>(expf(a.x) * 3.0f) & 1023;
  const float4 b = in[j];
  out[threadIdx.x] = make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w);
}
template __global__ void elementwise_kernel<float, Op, 16, 128, 2>(float4 *, const float4 *);
