#include "reference/ops/baseline_forms.h"

#include <array>

namespace kcheck::reference {
namespace {

constexpr std::array<BaselineForm, 12> kBaselineForms = {{
    {"silu_and_mul", "F.silu(x[..., :d]) * x[..., d:]"},
    {"gelu_and_mul", "F.gelu(x[..., :d]) * x[..., d:]"},
    {"gelu_tanh_and_mul", "F.gelu(x[..., :d], approximate=\"tanh\") * x[..., d:]"},
    {"mul_and_silu", "x[..., :d] * F.silu(x[..., d:])"},
    {"fatrelu_and_mul", "F.threshold(x[..., :d], threshold, 0) * x[..., d:]"},
    {"gelu", "F.gelu(x)"},
    {"gelu_tanh", "F.gelu(x, approximate=\"tanh\")"},
    {"gelu_quick", "x * torch.sigmoid(1.702 * x)"},
    {"silu", "F.silu(x)"},
    {"relu", "torch.relu(x)"},
    {"rms_norm", "F.rms_norm(input, (d,), weight, epsilon)"},
    {"identity", "x.clone()"},
}};

}  // namespace

const BaselineForm* find_baseline_form(std::string_view name) {
  for (const BaselineForm& form : kBaselineForms)
    if (form.name == name) return &form;
  return nullptr;
}

std::span<const BaselineForm> baseline_forms() { return kBaselineForms; }

}  // namespace kcheck::reference
