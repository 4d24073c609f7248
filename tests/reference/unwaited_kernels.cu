// Kernels sass_pdl.py must report (tests/CMakeLists.txt,
// reference_sass_pdl_fires): the first never waits for the grid before it,
// the second stores before it waits. The third waits first, as the reference
// kernels do (gpu_compat::wait_for_prior_grid), and must pass.
__device__ __forceinline__ void wait_for_prior_grid() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

__global__ void never_waits(float *out, const float *in) { out[threadIdx.x] = in[threadIdx.x] * 2.0f; }

__global__ void stores_then_waits(float *out, const float *in) {
  out[threadIdx.x] = 0.0f;
  wait_for_prior_grid();
  out[threadIdx.x + 1024] = in[threadIdx.x];
}

__global__ void waits_first(float *out, const float *in) {
  wait_for_prior_grid();
  out[threadIdx.x] = in[threadIdx.x] * 2.0f;
}
