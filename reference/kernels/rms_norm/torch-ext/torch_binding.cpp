#include <torch/library.h>
#include <torch/types.h>  // torch::kCPU / torch::kCUDA (ROCm Torch registers HIP kernels as CUDA)

#include "registration.h"
#include "torch_binding.h"

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("rms_norm(Tensor! out, Tensor input, Tensor weight, float epsilon) -> ()");
#if defined(CPU_KERNEL)
  ops.impl("rms_norm", torch::kCPU, &rms_norm);
#elif defined(CUDA_KERNEL) || defined(ROCM_KERNEL)
  ops.impl("rms_norm", torch::kCUDA, &rms_norm);
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
