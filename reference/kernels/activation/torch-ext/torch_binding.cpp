#include <torch/library.h>
#include <torch/types.h>  // torch::kCPU / torch::kCUDA (ROCm Torch registers HIP kernels as CUDA)

#include "registration.h"
#include "torch_binding.h"

TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("silu_and_mul(Tensor! out, Tensor input) -> ()");
  ops.def("mul_and_silu(Tensor! out, Tensor input) -> ()");
  ops.def("gelu_and_mul(Tensor! out, Tensor input) -> ()");
  ops.def("gelu_tanh_and_mul(Tensor! out, Tensor input) -> ()");
  ops.def("fatrelu_and_mul(Tensor! out, Tensor input, float threshold) -> ()");
  ops.def("gelu_new(Tensor! out, Tensor input) -> ()");
  ops.def("gelu_fast(Tensor! out, Tensor input) -> ()");
  ops.def("gelu_quick(Tensor! out, Tensor input) -> ()");
  ops.def("gelu_tanh(Tensor! out, Tensor input) -> ()");
  ops.def("silu(Tensor! out, Tensor input) -> ()");
  ops.def("gelu(Tensor! out, Tensor input) -> ()");

#if defined(CPU_KERNEL)
  ops.impl("silu_and_mul", torch::kCPU, &silu_and_mul);
  ops.impl("mul_and_silu", torch::kCPU, &mul_and_silu);
  ops.impl("gelu_and_mul", torch::kCPU, &gelu_and_mul);
  ops.impl("gelu_tanh_and_mul", torch::kCPU, &gelu_tanh_and_mul);
  ops.impl("fatrelu_and_mul", torch::kCPU, &fatrelu_and_mul);
  ops.impl("gelu_new", torch::kCPU, &gelu_new);
  ops.impl("gelu_fast", torch::kCPU, &gelu_fast);
  ops.impl("gelu_quick", torch::kCPU, &gelu_quick);
  ops.impl("gelu_tanh", torch::kCPU, &gelu_tanh);
  ops.impl("silu", torch::kCPU, &silu);
  ops.impl("gelu", torch::kCPU, &gelu);
#elif defined(CUDA_KERNEL) || defined(ROCM_KERNEL)
  ops.impl("silu_and_mul", torch::kCUDA, &silu_and_mul);
  ops.impl("mul_and_silu", torch::kCUDA, &mul_and_silu);
  ops.impl("gelu_and_mul", torch::kCUDA, &gelu_and_mul);
  ops.impl("gelu_tanh_and_mul", torch::kCUDA, &gelu_tanh_and_mul);
  ops.impl("fatrelu_and_mul", torch::kCUDA, &fatrelu_and_mul);
  ops.impl("gelu_new", torch::kCUDA, &gelu_new);
  ops.impl("gelu_fast", torch::kCUDA, &gelu_fast);
  ops.impl("gelu_quick", torch::kCUDA, &gelu_quick);
  ops.impl("gelu_tanh", torch::kCUDA, &gelu_tanh);
  ops.impl("silu", torch::kCUDA, &silu);
  ops.impl("gelu", torch::kCUDA, &gelu);
#endif
}

REGISTER_EXTENSION(TORCH_EXTENSION_NAME)
