#pragma once

// Argument checks shared by the CPU and CUDA components, and the activation
// functors (activation_functors.h, free of Torch so the device code can use
// them too).

#include <ATen/core/Tensor.h>
#include <c10/util/Exception.h>

#include "activation_functors.h"

namespace activation {

enum class Shape { kElementwise, kGated };

// Checks shared by every op; `backend` is "cpu" or "cuda" and names the
// device type the tensors must live on.
inline void check_args(const char *op, const char *backend, c10::DeviceType device_type, const at::Tensor &out,
                       const at::Tensor &input, Shape shape) {
  TORCH_CHECK(input.device().type() == device_type, op, " (", backend, "): input must be a ",
              c10::DeviceTypeName(device_type), " tensor, got ", input.device());
  TORCH_CHECK(out.device() == input.device(), op, " (", backend, "): out is on ", out.device(), " but input is on ",
              input.device());
  const auto dtype = input.scalar_type();
  TORCH_CHECK(dtype == at::kFloat || dtype == at::kHalf || dtype == at::kBFloat16 || dtype == at::kDouble, op, " (",
              backend, "): input dtype must be float32, float16, bfloat16 or float64, got ", dtype);
  TORCH_CHECK(out.scalar_type() == dtype, op, " (", backend, "): out dtype ", out.scalar_type(),
              " differs from input dtype ", dtype);
  TORCH_CHECK(input.is_contiguous(), op, " (", backend, "): input must be contiguous");
  TORCH_CHECK(out.is_contiguous(), op, " (", backend, "): out must be contiguous");
  if (shape == Shape::kElementwise) {
    TORCH_CHECK(out.sizes() == input.sizes(), op, " (", backend, "): out shape ", out.sizes(),
                " differs from input shape ", input.sizes());
    return;
  }
  TORCH_CHECK(input.dim() >= 1, op, " (", backend, "): input must have at least one dimension");
  const int64_t last = input.size(-1);
  TORCH_CHECK(last % 2 == 0, op, " (", backend, "): the last dimension of input must be even (2 * d), got ", last);
  auto expected = input.sizes().vec();
  expected.back() = last / 2;
  TORCH_CHECK(out.sizes() == at::IntArrayRef(expected), op, " (", backend, "): out shape ", out.sizes(),
              " must be input shape with the last dimension halved ", at::IntArrayRef(expected));
}

}  // namespace activation
