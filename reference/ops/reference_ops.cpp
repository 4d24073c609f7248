#include "reference/ops/reference_ops.h"

#include "reference/ops/baseline_forms.h"

#include <array>
#include <optional>
#include <utility>

#include <ATen/ATen.h>

namespace kcheck::reference {
namespace {

at::Tensor tensor_at(ReferenceArgs& args, std::size_t index) { return args.at(index).toTensor(); }

// input [..., 2d] -> (input[..., :d], input[..., d:])
std::pair<at::Tensor, at::Tensor> halves(const at::Tensor& input) {
  int64_t d = input.size(-1) / 2;
  return {input.narrow(-1, 0, d), input.narrow(-1, d, d)};
}

at::Tensor gelu_tanh_of(const at::Tensor& x) { return at::gelu(x, "tanh"); }
at::Tensor gelu_quick_of(const at::Tensor& x) { return x * at::sigmoid(1.702 * x); }

// op(Tensor! out, Tensor input) with out = act(input[..., :d]) * input[..., d:]
template <at::Tensor (*Activation)(const at::Tensor&)>
void gated(ReferenceArgs& args) {
  auto [a, b] = halves(tensor_at(args, 1));
  tensor_at(args, 0).copy_(Activation(a) * b);
}

// op(Tensor! out, Tensor input) with out = act(input)
template <at::Tensor (*Activation)(const at::Tensor&)>
void elementwise(ReferenceArgs& args) {
  tensor_at(args, 0).copy_(Activation(tensor_at(args, 1)));
}

at::Tensor silu_of(const at::Tensor& x) { return at::silu(x); }
at::Tensor gelu_of(const at::Tensor& x) { return at::gelu(x); }
at::Tensor relu_of(const at::Tensor& x) { return at::relu(x); }
at::Tensor identity_of(const at::Tensor& x) { return x.clone(); }

void mul_and_silu(ReferenceArgs& args) {
  auto [a, b] = halves(tensor_at(args, 1));
  tensor_at(args, 0).copy_(a * at::silu(b));
}

// fatrelu_and_mul(Tensor! out, Tensor input, float threshold)
void fatrelu_and_mul(ReferenceArgs& args) {
  auto [a, b] = halves(tensor_at(args, 1));
  double threshold = args.at(2).toDouble();
  tensor_at(args, 0).copy_(at::where(a > threshold, a, at::zeros_like(a)) * b);
}

// rms_norm(Tensor! out, Tensor input, Tensor weight, float epsilon)
void rms_norm(ReferenceArgs& args) {
  at::Tensor input = tensor_at(args, 1);
  double epsilon = args.at(3).toDouble();
  tensor_at(args, 0).copy_(input * at::rsqrt(input.pow(2).mean(-1, true) + epsilon) * tensor_at(args, 2));
}

constexpr std::array<std::pair<std::string_view, ReferenceFunction>, 12> kReferences = {{
    {"silu_and_mul", &gated<silu_of>},
    {"gelu_and_mul", &gated<gelu_of>},
    {"gelu_tanh_and_mul", &gated<gelu_tanh_of>},
    {"mul_and_silu", &mul_and_silu},
    {"fatrelu_and_mul", &fatrelu_and_mul},
    {"gelu", &elementwise<gelu_of>},
    {"gelu_tanh", &elementwise<gelu_tanh_of>},
    {"gelu_quick", &elementwise<gelu_quick_of>},
    {"silu", &elementwise<silu_of>},
    {"relu", &elementwise<relu_of>},
    {"rms_norm", &rms_norm},
    {"identity", &elementwise<identity_of>},
}};

const at::Tensor& input_of(const ReferenceArgs& args) { return args.at(1).toTensor(); }

template <at::Tensor (*Activation)(const at::Tensor&)>
at::Tensor gated_eager(const ReferenceArgs& args) {
  auto [a, b] = halves(input_of(args));
  return Activation(a) * b;
}

template <at::Tensor (*Activation)(const at::Tensor&)>
at::Tensor elementwise_eager(const ReferenceArgs& args) {
  return Activation(input_of(args));
}

at::Tensor mul_and_silu_eager(const ReferenceArgs& args) {
  auto [a, b] = halves(input_of(args));
  return a * at::silu(b);
}

at::Tensor fatrelu_and_mul_eager(const ReferenceArgs& args) {
  auto [a, b] = halves(input_of(args));
  return at::threshold(a, args.at(2).toDouble(), 0) * b;
}

at::Tensor rms_norm_eager(const ReferenceArgs& args) {
  const at::Tensor& input = input_of(args);
  return at::rms_norm(input, {input.size(-1)}, args.at(2).toTensor(), args.at(3).toDouble());
}

// Each computes its form in baseline_forms.cpp (the same name) with libtorch.
constexpr std::array<std::pair<std::string_view, BaselineFunction>, 12> kBaselineFunctions = {{
    {"silu_and_mul", &gated_eager<silu_of>},
    {"gelu_and_mul", &gated_eager<gelu_of>},
    {"gelu_tanh_and_mul", &gated_eager<gelu_tanh_of>},
    {"mul_and_silu", &mul_and_silu_eager},
    {"fatrelu_and_mul", &fatrelu_and_mul_eager},
    {"gelu", &elementwise_eager<gelu_of>},
    {"gelu_tanh", &elementwise_eager<gelu_tanh_of>},
    {"gelu_quick", &elementwise_eager<gelu_quick_of>},
    {"silu", &elementwise_eager<silu_of>},
    {"relu", &elementwise_eager<relu_of>},
    {"rms_norm", &rms_norm_eager},
    {"identity", &elementwise_eager<identity_of>},
}};

}  // namespace

std::optional<Baseline> find_baseline(std::string_view name) {
  const BaselineForm* form = find_baseline_form(name);
  if (!form) return std::nullopt;
  for (const auto& [known, function] : kBaselineFunctions)
    if (known == name) return Baseline{form->name, form->expression, function};
  return std::nullopt;
}

ReferenceFunction find_reference(std::string_view name) {
  for (const auto& [known, function] : kReferences)
    if (known == name) return function;
  return nullptr;
}

std::vector<std::string_view> reference_names() {
  std::vector<std::string_view> names;
  for (const auto& entry : kReferences) names.push_back(entry.first);
  return names;
}

}  // namespace kcheck::reference
