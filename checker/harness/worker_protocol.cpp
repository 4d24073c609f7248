#include "checker/harness/worker_protocol.h"

#include <concepts>
#include <utility>
#include <type_traits>

#include "checker/support/every_member.h"

namespace kcheck::worker {

using nlohmann::json;

// Each message type lists its members once, as (key, member) pairs, in a
// `fields` overload; both directions of the codec are made from that list,
// so a member cannot be written and not read. The list starts with every
// member bound by position (KCHECK_BIND_EVERY_MEMBER), so a member added to
// a message and not listed here does not compile.

void expect_object(const json& value) { (void)value.get_ref<const json::object_t&>(); }  // throws type_error

template <class T>
void put(json& object, const char* key, const T& member) {
  object[key] = member;
}
template <class T>
void put(json& object, const char* key, const std::optional<T>& member) {
  if (member) object[key] = *member;
}
template <class T>
void take(const json& object, const char* key, T& member) {
  if (auto found = object.find(key); found != object.end()) found->get_to(member);
}
template <class T>
void take(const json& object, const char* key, std::optional<T>& member) {
  if (auto found = object.find(key); found != object.end()) member = found->template get<T>();
}

template <class T>
void write_fields(json& object, const T& value) {
  object = json::object();
  fields(value, [&object](const char* key, const auto& member) { put(object, key, member); });
}
template <class T>
void read_fields(const json& object, T& value) {
  expect_object(object);
  fields(value, [&object](const char* key, auto& member) { take(object, key, member); });
}

#define KCHECK_PROTOCOL_UNPAREN(...) __VA_ARGS__
// KCHECK_PROTOCOL_FIELDS(Type, (every member, in order), field("key", member); ...)
#define KCHECK_PROTOCOL_FIELDS(Type, members, ...)                               \
  template <class Self, class Field>                                             \
  requires std::same_as<std::remove_const_t<Self>, Type>                         \
  void fields(Self& message, Field&& field) {                                    \
    KCHECK_BIND_EVERY_MEMBER(message, KCHECK_PROTOCOL_UNPAREN members);          \
    __VA_ARGS__;                                                                 \
  }                                                                              \
  void to_json(json& object, const Type& value) { write_fields(object, value); } \
  void from_json(const json& object, Type& value) { read_fields(object, value); }

KCHECK_PROTOCOL_FIELDS(CasePlan, (size, shape, args), field("size", size); field("shape", shape); field("args", args))
KCHECK_PROTOCOL_FIELDS(Tolerance, (rtol, atol), field("rtol", rtol); field("atol", atol))
KCHECK_PROTOCOL_FIELDS(OpPlan,
                       (name, schema, reference, reference_kind, reference_dtype, baseline, dtypes, tolerance, cases,
                        bytes_args),
                       field("name", name);
                       field("schema", schema); field("reference", reference); field("reference_kind", reference_kind);
                       field("reference_dtype", reference_dtype); field("baseline", baseline); field("dtypes", dtypes);
                       field("tolerance", tolerance); field("bytes", bytes_args); field("cases", cases))
KCHECK_PROTOCOL_FIELDS(BenchSettings, (enabled, samples, target_sample_seconds), field("enabled", enabled);
                       field("samples", samples); field("target_sample_seconds", target_sample_seconds))
KCHECK_PROTOCOL_FIELDS(PythonReferenceSettings, (python, helper, repository), field("python", python);
                       field("helper", helper); field("repository", repository))
KCHECK_PROTOCOL_FIELDS(WorkerPlan, (backend, seed, ops, bench, python_references), field("backend", backend);
                       field("seed", seed); field("bench", bench); field("ops", ops);
                       field("python_references", python_references))
KCHECK_PROTOCOL_FIELDS(WorkerInfo, (torch_version, cxx11_abi, backends), field("torch_version", torch_version);
                       field("cxx11_abi", cxx11_abi); field("backends", backends))
KCHECK_PROTOCOL_FIELDS(RegisteredOp, (name, op_namespace), field("name", name); field("namespace", op_namespace))
KCHECK_PROTOCOL_FIELDS(SmokeCall, (called, error), field("called", called); field("error", error))
KCHECK_PROTOCOL_FIELDS(CaseCheck,
                       (dtype, size, shape, max_abs_error, relative_error, rtol, atol, passed, problem, guard_violation,
                        device_error, unsupported, reference_problem),
                       field("dtype", dtype);
                       field("size", size); field("shape", shape); field("max_abs_error", max_abs_error);
                       field("relative_error", relative_error); field("rtol", rtol); field("atol", atol);
                       field("passed", passed); field("problem", problem); field("guard_violation", guard_violation);
                       field("device_error", device_error); field("unsupported", unsupported);
                       field("reference_problem", reference_problem))
KCHECK_PROTOCOL_FIELDS(OpResult, (op, schema, dispatch_keys, has_kernel, spec, schema_problem, smoke, checks),
                       field("op", op);
                       field("schema", schema); field("dispatch_keys", dispatch_keys); field("has_kernel", has_kernel);
                       field("spec", spec); field("schema_problem", schema_problem); field("smoke", smoke);
                       field("checks", checks))
KCHECK_PROTOCOL_FIELDS(CaseTiming,
                       (op, dtype, size, shape, median_us, spread_us, samples, buffer_sets, output_placements, bytes,
                        eager, eager_problem, eager_median_us, eager_spread_us),
                       field("op", op);
                       field("dtype", dtype); field("size", size); field("shape", shape); field("median_us", median_us);
                       field("spread_us", spread_us); field("samples", samples); field("buffer_sets", buffer_sets);
                       field("output_placements", output_placements); field("bytes", bytes); field("eager", eager);
                       field("eager_problem", eager_problem); field("eager_median_us", eager_median_us);
                       field("eager_spread_us", eager_spread_us))
KCHECK_PROTOCOL_FIELDS(DeviceLimits, (name, backend, copy_bandwidth_gbs, matmul_tflops, matmul_dtype),
                       field("name", name);
                       field("backend", backend); field("copy_bandwidth_gbs", copy_bandwidth_gbs);
                       field("matmul_tflops", matmul_tflops); field("matmul_dtype", matmul_dtype))
KCHECK_PROTOCOL_FIELDS(WorkerResult,
                       (stage, load_error, libpython_problem, new_ops, changed_ops, new_fallbacks, running, run_problem,
                        device, ops, benchmarks),
                       field("stage", stage);
                       field("load_error", load_error); field("libpython_problem", libpython_problem);
                       field("new_ops", new_ops); field("changed_ops", changed_ops);
                       field("new_fallbacks", new_fallbacks); field("running", running);
                       field("run_problem", run_problem); field("device", device); field("ops", ops);
                       field("benchmarks", benchmarks))

#undef KCHECK_PROTOCOL_FIELDS
#undef KCHECK_PROTOCOL_UNPAREN

// An argument is a tensor (a shape, and a value range when it is an input)
// or a float scalar (a value): the wire form says which by its keys. Its
// members are bound all the same (`scalar` is ArgPlan::value), so one added
// and not coded here does not compile.
void to_json(json& object, const ArgPlan& value) {
  KCHECK_BIND_EVERY_MEMBER(value, name, is_tensor, output, shape, low, high, scalar, integer);
  object = {{"name", name}};
  if (!is_tensor) {
    if (integer)
      object["int"] = static_cast<std::int64_t>(scalar);
    else
      object["value"] = scalar;
    return;
  }
  object["shape"] = shape;
  object["output"] = output;
  if (!output) {
    object["low"] = low;
    object["high"] = high;
  }
}

void from_json(const json& object, ArgPlan& value) {
  expect_object(object);
  take(object, "name", value.name);
  value.is_tensor = object.contains("shape");
  if (!value.is_tensor) {
    value.integer = object.contains("int");
    if (value.integer) {
      std::int64_t integer = 0;
      take(object, "int", integer);
      value.value = static_cast<double>(integer);
    } else {
      take(object, "value", value.value);
    }
    return;
  }
  take(object, "shape", value.shape);
  take(object, "output", value.output);
  take(object, "low", value.low);
  take(object, "high", value.high);
}

constexpr std::pair<WorkerStage, const char*> kStageNames[] = {{WorkerStage::loading, "loading"},
                                                               {WorkerStage::load_failed, "load_failed"},
                                                               {WorkerStage::loaded, "loaded"},
                                                               {WorkerStage::running, "running"},
                                                               {WorkerStage::done, "done"}};

constexpr std::pair<ReferenceKind, const char*> kReferenceKindNames[] = {
    {ReferenceKind::builtin, "builtin"}, {ReferenceKind::expression, "expression"}, {ReferenceKind::python, "python"}};

void to_json(json& object, const ReferenceKind& value) {
  object = nullptr;
  for (const auto& [kind, name] : kReferenceKindNames)
    if (kind == value) object = name;
}

// An unknown kind is an error: a reference the worker cannot compute must not read as a built-in one.
void from_json(const json& object, ReferenceKind& value) {
  for (const auto& [kind, name] : kReferenceKindNames)
    if (object.is_string() && object.get_ref<const std::string&>() == name) {
      value = kind;
      return;
    }
  throw json::type_error::create(302, "unknown reference kind " + object.dump(), &object);
}

void to_json(json& object, const WorkerStage& value) {
  object = nullptr;
  for (const auto& [stage, name] : kStageNames)
    if (stage == value) object = name;
}

// A stage kcheck does not know (or no string) reads as `unknown`.
void from_json(const json& object, WorkerStage& value) {
  value = WorkerStage::unknown;
  if (!object.is_string()) return;
  for (const auto& [stage, name] : kStageNames)
    if (object.get_ref<const std::string&>() == name) value = stage;
}

}  // namespace kcheck::worker
