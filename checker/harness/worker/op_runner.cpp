#include "checker/harness/worker/op_runner.h"

#include <algorithm>
#include <functional>
#include <map>
#include <new>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/frontend/function_schema_parser.h>

#include "checker/harness/worker/op_timing.h"
#include "checker/harness/worker/python_reference.h"
#include "checker/harness/worker/timing_layout.h"
#include "reference/ops/reference_ops.h"

namespace kcheck::worker {
namespace {

constexpr std::int64_t kGuardBytes = 4096;

std::optional<at::ScalarType> dtype_named(const std::string& name) {
  if (name == "float32") return at::kFloat;
  if (name == "float16") return at::kHalf;
  if (name == "bfloat16") return at::kBFloat16;
  if (name == "float64") return at::kDouble;
  return std::nullopt;
}

// splitmix64 over the run's seed and what the case is: reproducible from
// the seed in the report, different for every case.
std::uint64_t case_seed(std::uint64_t seed, const std::string& what) {
  std::uint64_t x = seed;
  for (unsigned char c : what) x = (x ^ c) * 0x100000001b3ull;
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return (x ^ (x >> 31)) & ((1ull << 53) - 1);
}

at::Tensor random_tensor(const ArgPlan& arg, at::ScalarType dtype, const WorkerDevice& device, std::uint64_t seed) {
  at::Generator generator = at::globalContext().defaultGenerator(device.device);
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_current_seed(seed);
  }
  at::Tensor values = at::empty(arg.shape, at::TensorOptions().dtype(at::kFloat).device(device.device));
  values.uniform_(arg.low, arg.high, generator);
  return values.to(dtype);
}

// An output inside a larger buffer poisoned with NaN: the op must write
// every element of the view and nothing of the guard regions around it.
struct GuardedOutput {
  at::Tensor buffer;
  at::Tensor view;
  std::int64_t guard = 0;   // elements on each side
  at::Tensor poison_bytes;  // one guard region's expected bytes

  GuardedOutput(const ArgPlan& arg, at::ScalarType dtype, const WorkerDevice& device) {
    std::int64_t numel = 1;
    for (std::int64_t extent : arg.shape) numel *= extent;
    guard = kGuardBytes / static_cast<std::int64_t>(c10::elementSize(dtype));
    auto options = at::TensorOptions().dtype(dtype).device(device.device);
    buffer = at::full({numel + 2 * guard}, std::numeric_limits<double>::quiet_NaN(), options);
    view = buffer.narrow(0, guard, numel).view(arg.shape);
    poison_bytes = at::full({guard}, std::numeric_limits<double>::quiet_NaN(), options).view(at::kByte);
  }

  bool guards_intact() const {
    std::int64_t numel = buffer.numel() - 2 * guard;
    return at::equal(buffer.narrow(0, 0, guard).view(at::kByte), poison_bytes) &&
           at::equal(buffer.narrow(0, guard + numel, guard).view(at::kByte), poison_bytes);
  }
};

struct Comparison {
  double max_abs_error = 0;
  double relative_error = 0;
  bool within_tolerance = false;
  bool unwritten = false;  // NaN left where the reference has a number
};

Comparison compare(const at::Tensor& output, const at::Tensor& reference, const Tolerance& tolerance) {
  Comparison result;
  if (output.numel() == 0) {  // equal shapes, nothing in them: nothing differs
    result.within_tolerance = true;
    return result;
  }
  at::Tensor out = output.to(at::kDouble);
  result.unwritten = (at::isnan(out) & ~at::isnan(reference)).any().item<bool>();
  at::Tensor difference = (out - reference).abs();
  result.max_abs_error = difference.max().item<double>();
  double reference_norm = reference.norm().item<double>();
  double difference_norm = difference.norm().item<double>();
  result.relative_error = reference_norm > 0 ? difference_norm / reference_norm : difference_norm;
  result.within_tolerance =
      !result.unwritten && (difference <= tolerance.atol + tolerance.rtol * reference.abs()).all().item<bool>();
  return result;
}

// A scalar argument as the op takes it: an int or a float.
c10::IValue scalar_value(const ArgPlan& arg) {
  if (arg.integer) return c10::IValue(static_cast<std::int64_t>(arg.value));
  return c10::IValue(arg.value);
}

// The op's arguments for one case in one dtype.
struct CaseTensors {
  std::vector<c10::IValue> op_args;
  std::vector<std::optional<GuardedOutput>> outputs;  // by argument index
  std::vector<c10::IValue> reference_args;            // float64
  std::int64_t bytes = 0;
};

CaseTensors make_case(const OpPlan& op, const CasePlan& plan_case, at::ScalarType dtype, const WorkerDevice& device,
                      std::uint64_t seed) {
  CaseTensors tensors;
  for (const ArgPlan& arg : plan_case.args) {
    if (!arg.is_tensor) {
      tensors.op_args.push_back(scalar_value(arg));
      tensors.reference_args.push_back(scalar_value(arg));
      tensors.outputs.emplace_back();
      continue;
    }
    at::Tensor value;
    if (arg.output) {
      tensors.outputs.emplace_back(GuardedOutput(arg, dtype, device));
      value = tensors.outputs.back()->view;
      tensors.reference_args.emplace_back(at::empty(arg.shape, value.options().dtype(at::kDouble)));
    } else {
      value = random_tensor(arg, dtype, device, case_seed(seed, arg.name));
      tensors.outputs.emplace_back();
      tensors.reference_args.emplace_back(value.to(at::kDouble));
    }
    if (std::find(op.bytes_args.begin(), op.bytes_args.end(), arg.name) != op.bytes_args.end())
      tensors.bytes += value.numel() * static_cast<std::int64_t>(value.element_size());
    tensors.op_args.emplace_back(value);
  }
  return tensors;
}

// Plain (unguarded) arguments for timing: layout.buffer_sets buffer sets
// whose inputs are independent, so consecutive calls read from beyond the
// last-level cache. Their outputs are one buffer per argument, shared by
// every set: what the eager baseline (and a user's `torch.empty_like` before
// each call) writes into, since Torch's caching allocator hands a fresh
// result the same block every call. With an output of its own per set, the
// op alone would write to addresses out of cache: on an H100 that made a
// float32 activation of 256x8192 (8 MiB out) 9.1 us against eager's 7.2-7.9,
// and Torch's own kernel as slow when it wrote into the rotated outputs
// (issue #32, bench/results/roofline-h100-2026-11-28-probe10.log). Outputs
// too large to stay in that cache take layout.output_placements blocks
// instead, set s writing block s % output_placements, as the eager form's
// and the compiled forms' results rotate through as many (timing_layout.h).
// The outputs are allocated after the inputs, as a user's `torch.empty_like(x)`
// and the baselines' results are: on an H200 the same relu kernel at 16384 x
// 8192 in float32 ran 252.6-252.7 us into an output allocated before its
// input and 252.2-252.3 into one allocated after it, idle or busy before
// (roofline-h200-2026-11-28d-probe28a.log, the probe's drift study).
std::vector<std::vector<c10::IValue>> timing_sets(const CasePlan& plan_case, at::ScalarType dtype,
                                                  const WorkerDevice& device, const TimingLayout& layout,
                                                  std::uint64_t seed) {
  std::vector<std::vector<c10::IValue>> result(layout.buffer_sets);
  for (int s = 0; s < layout.buffer_sets; ++s)
    for (const ArgPlan& arg : plan_case.args) {
      if (!arg.is_tensor)
        result[s].push_back(scalar_value(arg));
      else if (arg.output)
        result[s].emplace_back();  // an output block, below
      else
        result[s].emplace_back(random_tensor(arg, dtype, device, case_seed(seed, arg.name + std::to_string(s))));
    }
  for (std::size_t index = 0; index < plan_case.args.size(); ++index) {
    const ArgPlan& arg = plan_case.args[index];
    if (!arg.is_tensor || !arg.output) continue;
    std::vector<c10::IValue> blocks;
    for (int block = 0; block < layout.output_placements; ++block)
      blocks.emplace_back(at::empty(arg.shape, at::TensorOptions().dtype(dtype).device(device.device)));
    for (int s = 0; s < layout.buffer_sets; ++s) result[s][index] = blocks[s % layout.output_placements];
  }
  return result;
}

// The bytes of one call's inputs (`outputs` false) or outputs.
std::int64_t argument_bytes(const CasePlan& plan_case, at::ScalarType dtype, bool outputs) {
  std::int64_t bytes = 0;
  for (const ArgPlan& arg : plan_case.args)
    if (arg.is_tensor && arg.output == outputs)
      bytes += std::accumulate(arg.shape.begin(), arg.shape.end(), std::int64_t{1}, std::multiplies<>()) *
               static_cast<std::int64_t>(c10::elementSize(dtype));
  return bytes;
}

bool has_kernel_for(const c10::OperatorHandle& handle, const WorkerDevice& device) {
  c10::DispatchKey backend = device.device.is_cpu() ? c10::DispatchKey::CPU : c10::DispatchKey::CUDA;
  return handle.hasKernelForDispatchKey(backend) ||
         handle.hasKernelForDispatchKey(c10::DispatchKey::CompositeExplicitAutograd) ||
         handle.hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd);
}

// The dispatch keys an op has a kernel for, among those a kernel registers for.
std::vector<std::string> dispatch_keys_with_kernels(const c10::OperatorHandle& handle) {
  using Key = c10::DispatchKey;
  static constexpr Key kKeys[] = {Key::CPU,
                                  Key::CUDA,
                                  Key::HIP,
                                  Key::XPU,
                                  Key::MPS,
                                  Key::Meta,
                                  Key::PrivateUse1,
                                  Key::CompositeImplicitAutograd,
                                  Key::CompositeExplicitAutograd,
                                  Key::CompositeExplicitAutogradNonFunctional,
                                  Key::Autograd,
                                  Key::AutogradCPU,
                                  Key::AutogradCUDA};
  std::vector<std::string> keys;
  for (Key key : kKeys)
    if (handle.hasKernelForDispatchKey(key)) keys.emplace_back(c10::toString(key));
  return keys;
}

// The tensors an op returned (left on the stack by callBoxed), in order.
std::vector<at::Tensor> returned_tensors(const std::vector<c10::IValue>& stack) {
  std::vector<at::Tensor> tensors;
  for (const c10::IValue& value : stack) {
    if (value.isTensor()) tensors.push_back(value.toTensor());
    if (value.isTensorList())
      for (const at::Tensor& tensor : value.toTensorVector()) tensors.push_back(tensor);
    if (value.isTuple())
      for (const c10::IValue& element : value.toTupleRef().elements())
        if (element.isTensor()) tensors.push_back(element.toTensor());
  }
  return tensors;
}

// "" when the registered schema takes the arguments the plan expects.
std::string schema_problem(const c10::FunctionSchema& registered, const std::string& expected_text) {
  c10::FunctionSchema expected = torch::jit::parseSchema(expected_text);
  const auto& have = registered.arguments();
  const auto& want = expected.arguments();
  bool same = have.size() == want.size() && registered.returns().size() == expected.returns().size();
  for (std::size_t i = 0; same && i < have.size(); ++i) same = have[i].type()->str() == want[i].type()->str();
  if (same) return {};
  return "registered as " + c10::toString(registered) + ", the spec expects " + expected_text;
}

// Smoke call of an op without a spec: small float32 tensors, 0.5 for floats,
// 1 for ints, false for bools. Returns "" or what went wrong; throws nothing.
std::pair<bool, std::string> smoke_call(const c10::OperatorHandle& handle, const WorkerDevice& device) {
  std::vector<c10::IValue> stack;
  for (const c10::Argument& argument : handle.schema().arguments()) {
    const auto& type = argument.type();
    if (type->kind() == c10::TypeKind::TensorType)
      stack.emplace_back(at::rand({8, 64}, at::TensorOptions().device(device.device)));
    else if (type->kind() == c10::TypeKind::FloatType)
      stack.emplace_back(0.5);
    else if (type->kind() == c10::TypeKind::IntType)
      stack.emplace_back(static_cast<std::int64_t>(1));
    else if (type->kind() == c10::TypeKind::BoolType)
      stack.emplace_back(false);
    else
      return {false, "argument '" + argument.name() + "' of type " + type->str() + " cannot be made up"};
  }
  try {
    handle.callBoxed(stack);
    device.synchronize();
    return {true, {}};
  } catch (const std::exception& error) {
    return {true, std::string(error.what()).substr(0, 400)};
  }
}

std::string first_line(const std::string& text) {
  auto end = text.find('\n');
  return (end == std::string::npos ? text : text.substr(0, end)).substr(0, 400);
}

class OpRunner {
 public:
  OpRunner(const WorkerPlan& plan, const WorkerDevice& device, const StageCallback& stage, std::string work_dir)
      : plan_(plan), device_(device), stage_(stage), work_dir_(std::move(work_dir)) {}

  OpsRun run(const std::vector<std::string>& op_names) {
    OpsRun run;
    for (const std::string& full_name : op_names) run.ops.push_back(run_op(full_name));
    run.benchmarks = std::move(benchmarks_);
    return run;
  }

 private:
  OpResult run_op(const std::string& full_name) {
    auto dot = full_name.find('.', full_name.find("::"));
    c10::OperatorName name(full_name.substr(0, dot),
                           dot == std::string::npos ? std::string() : full_name.substr(dot + 1));
    auto separator = full_name.find("::");
    std::string base = full_name.substr(separator == std::string::npos ? 0 : separator + 2,
                                        dot == std::string::npos ? std::string::npos : dot - separator - 2);
    OpResult result;
    result.op = full_name;
    auto handle = c10::Dispatcher::singleton().findOp(name);
    if (!handle) {
      result.has_kernel = false;
      return result;
    }
    result.schema = c10::toString(handle->schema());
    result.dispatch_keys = dispatch_keys_with_kernels(*handle);
    result.has_kernel = has_kernel_for(*handle, device_);
    if (!result.has_kernel || device_failed_) return result;
    const OpPlan* op = find_plan(base);
    if (op) {
      std::string problem = schema_problem(handle->schema(), op->schema);
      if (!problem.empty()) {
        result.schema_problem = problem;
        op = nullptr;
      }
    }
    if (!op) {
      stage_(full_name + " (smoke call)");
      auto [called, error] = smoke_call(*handle, device_);
      result.smoke = SmokeCall{called, error};
      return result;
    }
    result.spec = op->name;
    std::map<std::string, ReferenceOutputs> python_outputs;
    if (op->reference_kind != ReferenceKind::builtin) python_outputs = python_references(full_name, *op);
    for (const std::string& dtype_name : op->dtypes)
      for (const CasePlan& plan_case : op->cases) {
        if (device_failed_) break;
        auto found = python_outputs.find(case_id(dtype_name, plan_case));
        result.checks.push_back(guarded_check(*handle, full_name, *op, plan_case, dtype_name,
                                              found == python_outputs.end() ? nullptr : &found->second));
      }
    keep_refusals_of_whole_dtypes(result.checks);
    return result;
  }

  // A dtype is unsupported only when the op refused it in every case; a
  // refusal of some sizes only is an op that fails on valid inputs (KD002).
  static void keep_refusals_of_whole_dtypes(std::vector<CaseCheck>& checks) {
    std::map<std::string, bool> refused_always;
    for (const CaseCheck& check : checks) {
      auto [entry, fresh] = refused_always.emplace(check.dtype, check.unsupported);
      if (!fresh) entry->second = entry->second && check.unsupported;
    }
    for (CaseCheck& check : checks) check.unsupported = check.unsupported && refused_always.at(check.dtype);
  }

  // check_case with anything kcheck's own comparison throws caught: that
  // case has no verdict, and the op's other cases still run.
  CaseCheck guarded_check(const c10::OperatorHandle& handle, const std::string& full_name, const OpPlan& op,
                          const CasePlan& plan_case, const std::string& dtype_name, const ReferenceOutputs* python) {
    try {
      return check_case(handle, full_name, op, plan_case, dtype_name, python);
    } catch (const std::exception& error) {
      CaseCheck check;
      check.dtype = dtype_name;
      check.size = plan_case.size;
      check.shape = plan_case.shape;
      check.reference_problem = "kcheck could not compare this case: " + first_line(error.what());
      return check;
    }
  }

  static std::string case_id(const std::string& dtype_name, const CasePlan& plan_case) {
    return dtype_name + "-" + plan_case.size;
  }

  // Every case's expected outputs from the op's Python reference, in one
  // run of the helper, on the very inputs check_case will give the op.
  std::map<std::string, ReferenceOutputs> python_references(const std::string& full_name, const OpPlan& op) {
    stage_(full_name + " (Python reference)");
    PythonReferenceBatch batch(op, plan_.python_references, device_.device.is_cpu() ? "cpu" : "cuda",
                               work_dir_ + "/python-reference");
    for (const std::string& dtype_name : op.dtypes)
      for (const CasePlan& plan_case : op.cases) {
        auto dtype = dtype_named(dtype_name);
        if (!dtype) continue;
        CaseTensors tensors = make_case(op, plan_case, *dtype, device_, case_inputs_seed(op, dtype_name, plan_case));
        batch.add(case_id(dtype_name, plan_case), plan_case.args, tensors.op_args);
      }
    return batch.run();
  }

  std::uint64_t case_inputs_seed(const OpPlan& op, const std::string& dtype_name, const CasePlan& plan_case) const {
    return case_seed(plan_.seed, op.name + " " + dtype_name + " " + plan_case.shape);
  }

  const OpPlan* find_plan(const std::string& base) const {
    for (const OpPlan& op : plan_.ops)
      if (op.name == base) return &op;
    return nullptr;
  }

  CaseCheck check_case(const c10::OperatorHandle& handle, const std::string& full_name, const OpPlan& op,
                       const CasePlan& plan_case, const std::string& dtype_name, const ReferenceOutputs* python) {
    CaseCheck check;
    check.dtype = dtype_name;
    check.size = plan_case.size;
    check.shape = plan_case.shape;
    auto dtype = dtype_named(dtype_name);
    reference::ReferenceFunction builtin = nullptr;
    if (op.reference_kind == ReferenceKind::builtin) builtin = reference::find_reference(op.reference);
    if (!dtype) {
      check.problem = "unknown dtype " + dtype_name;
      return check;
    }
    if (op.reference_kind == ReferenceKind::builtin && !builtin) {
      check.reference_problem = "no reference implementation " + op.reference;
      return check;
    }
    if (op.reference_kind != ReferenceKind::builtin && (!python || !python->problem.empty())) {
      check.reference_problem = python ? python->problem : "the Python reference gave nothing for this case";
      return check;
    }
    Tolerance tolerance = op.tolerance.contains(dtype_name) ? op.tolerance.at(dtype_name) : Tolerance{};
    check.rtol = tolerance.rtol;
    check.atol = tolerance.atol;
    std::string what = full_name + " " + dtype_name + " " + plan_case.shape;
    std::uint64_t seed = case_inputs_seed(op, dtype_name, plan_case);
    CaseTensors tensors = make_case(op, plan_case, *dtype, device_, seed);
    std::vector<at::Tensor> returned;
    try {
      device_.synchronize();
      stage_(what);
      std::vector<c10::IValue> stack = tensors.op_args;
      handle.callBoxed(stack);
      device_.synchronize();
      returned = returned_tensors(stack);
    } catch (const c10::Error& error) {
      check.problem = "the op raised: " + first_line(error.what_without_backtrace());
      if (!device_.device.is_cpu()) confirm_device(check);
      check.unsupported = check.device_error.empty() && nothing_written(tensors);
      return check;
    } catch (const std::exception& error) {
      check.problem = "the op raised: " + first_line(error.what());
      if (!device_.device.is_cpu()) confirm_device(check);
      // A clean refusal whatever the exception's type: a stable-ABI kernel's
      // STD_TORCH_CHECK arrives as std::runtime_error, not c10::Error. Running
      // out of memory is no refusal of the dtype.
      check.unsupported = check.device_error.empty() && dynamic_cast<const std::bad_alloc*>(&error) == nullptr &&
                          nothing_written(tensors);
      return check;
    }
    // What the op produced, in order: its out arguments, then what it returned.
    std::vector<std::pair<std::string, at::Tensor>> produced;
    for (std::size_t i = 0; i < plan_case.args.size(); ++i) {
      if (!tensors.outputs[i]) continue;
      const GuardedOutput& output = *tensors.outputs[i];
      if (!output.guards_intact()) {
        check.problem = "wrote outside its output '" + plan_case.args[i].name + "' (guard bytes changed)";
        check.guard_violation = true;
      }
      produced.emplace_back(plan_case.args[i].name, output.view);
    }
    std::vector<at::Tensor> expected;
    if (builtin) {
      stage_(what + " (reference)");
      builtin(tensors.reference_args);
      for (std::size_t i = 0; i < plan_case.args.size(); ++i)
        if (tensors.outputs[i]) expected.push_back(tensors.reference_args[i].toTensor());
    } else {
      expected = python->outputs;
      for (std::size_t i = 0; i < returned.size(); ++i)
        produced.emplace_back("returned value " + std::to_string(i), returned[i]);
    }
    if (produced.empty()) {
      check.reference_problem = "the op has no output to compare (no out argument, no returned tensor)";
      return check;
    }
    if (expected.size() != produced.size()) {
      check.reference_problem = "the reference gives " + std::to_string(expected.size()) + " output(s), the op has " +
                                std::to_string(produced.size()) + " (out arguments, then returned tensors)";
      return check;
    }
    bool passed = !check.guard_violation;
    double max_abs = 0, relative = 0;
    for (std::size_t i = 0; i < produced.size(); ++i) {
      const auto& [name, output] = produced[i];
      if (output.sizes() != expected[i].sizes()) {
        if (check.problem.empty())
          check.problem = "'" + name + "' has shape " + c10::str(output.sizes()) + ", the reference's is " +
                          c10::str(expected[i].sizes());
        passed = false;
        continue;
      }
      Comparison comparison = compare(output, expected[i].to(output.device()), tolerance);
      if (comparison.unwritten && check.problem.empty())
        check.problem = "left elements of '" + name + "' unwritten (NaN poison remains)";
      max_abs = std::max(max_abs, comparison.max_abs_error);
      relative = std::max(relative, comparison.relative_error);
      passed = passed && comparison.within_tolerance;
    }
    check.max_abs_error = std::isfinite(max_abs) ? max_abs : -1.0;
    check.relative_error = std::isfinite(relative) ? relative : -1.0;
    check.passed = passed;
    if (plan_.bench.enabled && passed)
      benchmark_case(handle, full_name, op, plan_case, *dtype, dtype_name, tensors.bytes, seed);
    return check;
  }

  // After a clean refusal: every output still holds only its NaN poison and
  // its guards are intact, so the op wrote nothing (an unsupported dtype).
  static bool nothing_written(const CaseTensors& tensors) {
    for (const std::optional<GuardedOutput>& output : tensors.outputs)
      if (output && (!output->guards_intact() || !at::isnan(output->view).all().item<bool>())) return false;
    return true;
  }

  // After an exception on a GPU: is the device still usable? A sticky CUDA
  // error (illegal address, ...) ends all further work in this process.
  void confirm_device(CaseCheck& check) {
    try {
      at::ones({1}, at::TensorOptions().device(device_.device)).sum().item<float>();
      device_.synchronize();
    } catch (const std::exception& error) {
      device_failed_ = true;
      check.device_error = first_line(error.what());
    }
  }

  void benchmark_case(const c10::OperatorHandle& handle, const std::string& full_name, const OpPlan& op,
                      const CasePlan& plan_case, at::ScalarType dtype, const std::string& dtype_name,
                      std::int64_t bytes, std::uint64_t seed) {
    std::string what = full_name + " " + dtype_name + " " + plan_case.shape;
    stage_(what + " (timing)");
    // Enough buffer sets that consecutive calls read twice the last-level
    // cache, and where the outputs exceed it, several output blocks (timing_layout.h).
    const TimingLayout layout =
        timing_layout(argument_bytes(plan_case, dtype, false), argument_bytes(plan_case, dtype, true),
                      device_.last_level_cache_bytes, device_.memory_bytes);
    const int sets = layout.buffer_sets;
    auto op_sets = timing_sets(plan_case, dtype, device_, layout, seed);
    TimingStats ours = time_on_device(
        device_,
        [&](int i) {
          std::vector<c10::IValue> stack = op_sets[i % sets];
          handle.callBoxed(stack);
        },
        sets, plan_.bench);
    CaseTiming result;
    result.op = op.name;
    result.dtype = dtype_name;
    result.size = plan_case.size;
    result.shape = plan_case.shape;
    result.median_us = ours.median_seconds * 1e6;
    result.spread_us = ours.spread_seconds * 1e6;
    result.samples = ours.samples;
    result.buffer_sets = sets;
    result.output_placements = layout.output_placements;
    result.bytes = bytes;
    // What a user would run instead, on the same inputs, timed the same way.
    if (const std::optional<reference::Baseline> baseline = reference::find_baseline(op.baseline)) {
      stage_(what + " (baseline)");
      // Its results held, output_placements - 1 at a time: the caching
      // allocator hands the calls as many blocks in turn as the op writes.
      std::vector<at::Tensor> held(static_cast<std::size_t>(layout.output_placements - 1));
      TimingStats eager = time_on_device(
          device_,
          [&](int i) {
            at::Tensor result = baseline->run(op_sets[i % sets]);
            if (!held.empty()) held[static_cast<std::size_t>(i) % held.size()] = std::move(result);
          },
          sets, plan_.bench);
      held.clear();
      result.eager = std::string(baseline->expression);
      result.eager_median_us = eager.median_seconds * 1e6;
      result.eager_spread_us = eager.spread_seconds * 1e6;
    } else {
      result.eager_problem = op.baseline.empty()
                                 ? "the op spec declares no baseline"
                                 : "no baseline named '" + op.baseline + "' in reference/ops/baseline_forms.cpp";
    }
    benchmarks_.push_back(std::move(result));
  }

  const WorkerPlan& plan_;
  const WorkerDevice& device_;
  const StageCallback& stage_;
  std::string work_dir_;  // the worker's scratch: the Python references' exchange files
  std::vector<CaseTiming> benchmarks_;
  bool device_failed_ = false;
};

}  // namespace

OpsRun run_ops(const std::vector<std::string>& op_names, const WorkerPlan& plan, const WorkerDevice& device,
               const StageCallback& stage, const std::string& work_dir) {
  return OpRunner(plan, device, stage, work_dir).run(op_names);
}

DeviceLimits measure_device_limits(const WorkerDevice& device, const BenchSettings& settings) {
  std::int64_t bytes = device.device.is_cpu() ? (256ll << 20) : (1ll << 30);
  auto options = at::TensorOptions().dtype(at::kByte).device(device.device);
  at::Tensor source = at::ones({bytes}, options);
  at::Tensor destination = at::empty({bytes}, options);
  BenchSettings copy_settings = settings;
  copy_settings.samples = std::max(10, settings.samples / 2);
  TimingStats copy = time_on_device(
      device, [&](int) { destination.copy_(source); }, 1, copy_settings);
  double gbs = copy.median_seconds > 0 ? 2.0 * static_cast<double>(bytes) / copy.median_seconds / 1e9 : 0.0;
  // The matrix-multiply rate, the roofline of ops with meaningful FLOPs:
  // square bfloat16 products on a GPU (float32 on the CPU), large enough to reach it.
  const bool cpu = device.device.is_cpu();
  const std::int64_t n = cpu ? 1024 : 8192;
  const auto matrix = at::TensorOptions().dtype(cpu ? at::kFloat : at::kBFloat16).device(device.device);
  at::Tensor left = at::rand({n, n}, matrix), right = at::rand({n, n}, matrix), product = at::empty({n, n}, matrix);
  TimingStats matmul = time_on_device(
      device, [&](int) { at::mm_out(product, left, right); }, 1, copy_settings);
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  double tflops = matmul.median_seconds > 0 ? flops / matmul.median_seconds / 1e12 : 0.0;
  return {device.name, device.backend, gbs, tflops, cpu ? "float32" : "bfloat16"};
}

}  // namespace kcheck::worker
