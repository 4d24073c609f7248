#pragma once

// Argument checks shared by the CPU and CUDA components.

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

#include <cstdint>
#include <limits>

namespace rms_norm_impl {

// `backend` is "cpu" or "cuda" and names the device type the tensors must
// live on.
inline void check_args(const char *backend, c10::DeviceType device_type, const at::Tensor &out, const at::Tensor &input,
                       const at::Tensor &weight) {
  TORCH_CHECK(input.device().type() == device_type, "rms_norm (", backend, "): input must be a ",
              c10::DeviceTypeName(device_type), " tensor, got ", input.device());
  TORCH_CHECK(out.device() == input.device() && weight.device() == input.device(), "rms_norm (", backend, "): out (",
              out.device(), "), input (", input.device(), ") and weight (", weight.device(),
              ") must be on the same device");
  const auto dtype = input.scalar_type();
  TORCH_CHECK(dtype == at::kFloat || dtype == at::kHalf || dtype == at::kBFloat16 || dtype == at::kDouble, "rms_norm (",
              backend, "): input dtype must be float32, float16, bfloat16 or float64, got ", dtype);
  TORCH_CHECK(out.scalar_type() == dtype && weight.scalar_type() == dtype, "rms_norm (", backend, "): out (",
              out.scalar_type(), ") and weight (", weight.scalar_type(), ") must have the input dtype ", dtype);
  TORCH_CHECK(input.dim() >= 1, "rms_norm (", backend, "): input must have at least one dimension");
  TORCH_CHECK(out.sizes() == input.sizes(), "rms_norm (", backend, "): out shape ", out.sizes(),
              " differs from input shape ", input.sizes());
  TORCH_CHECK(weight.dim() == 1 && weight.size(0) == input.size(-1), "rms_norm (", backend,
              "): weight must have shape [", input.size(-1), "] (the last dimension of input), got ", weight.sizes());
  TORCH_CHECK(input.size(-1) <= std::numeric_limits<int32_t>::max(), "rms_norm (", backend,
              "): the last dimension is too large (", input.size(-1), ")");
  TORCH_CHECK(input.is_contiguous(), "rms_norm (", backend, "): input must be contiguous");
  TORCH_CHECK(out.is_contiguous(), "rms_norm (", backend, "): out must be contiguous");
  TORCH_CHECK(weight.is_contiguous(), "rms_norm (", backend, "): weight must be contiguous");
}

}  // namespace rms_norm_impl
