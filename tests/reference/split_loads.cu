// A kernel whose two loads sass_load_order.py must report as split: the
// second load's address needs the first load's value through an exp, so
// arithmetic sits between them in the SASS (tests/CMakeLists.txt,
// reference_sass_load_order_fires). Named like the activation kernels'
// gated_kernel, which is what the tool looks for.
__global__ void gated_kernel_split(float *out, const float *in) {
  const float a = in[threadIdx.x];
  const int j = static_cast<int>(expf(a) * 3.0f) & 1023;
  out[threadIdx.x] = in[j] * a;
}
