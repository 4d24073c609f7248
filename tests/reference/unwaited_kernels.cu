// Kernels sass_pdl.py must report (tests/CMakeLists.txt,
// reference_sass_pdl_fires). The last template argument is kOverlap, as in
// the reference kernels. Instantiated with true: never_waits and
// stores_then_waits break the contract, waits_first keeps it. With false:
// waits_anyway breaks it (the wait costs each block), plain keeps it. And
// flagged_parameter, no template of its own, breaks it by waiting: the true
// in its parameter's type is not its kOverlap.
__device__ __forceinline__ void wait_for_prior_grid() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

template <bool kOverlap>
__global__ void never_waits(float *out, const float *in) {
  out[threadIdx.x] = in[threadIdx.x] * 2.0f;
}

template <bool kOverlap>
__global__ void stores_then_waits(float *out, const float *in) {
  out[threadIdx.x] = 0.0f;
  wait_for_prior_grid();
  out[threadIdx.x + 1024] = in[threadIdx.x];
}

template <bool kOverlap>
__global__ void waits_first(float *out, const float *in) {
  wait_for_prior_grid();
  out[threadIdx.x] = in[threadIdx.x] * 2.0f;
}

template <bool kOverlap>
__global__ void waits_anyway(float *out, const float *in) {
  wait_for_prior_grid();
  out[threadIdx.x] = in[threadIdx.x] * 2.0f;
}

template <bool kOverlap>
__global__ void plain(float *out, const float *in) {
  out[threadIdx.x] = in[threadIdx.x] * 2.0f;
}

template <bool kFlag>
struct Flagged {
  float value;
};

__global__ void flagged_parameter(Flagged<true> *out) {
  wait_for_prior_grid();
  out[threadIdx.x].value = 1.0f;
}

template __global__ void never_waits<true>(float *, const float *);
template __global__ void stores_then_waits<true>(float *, const float *);
template __global__ void waits_first<true>(float *, const float *);
template __global__ void waits_anyway<false>(float *, const float *);
template __global__ void plain<false>(float *, const float *);
