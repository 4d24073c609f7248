#include "checker/harness/worker_protocol.h"

#include <concepts>
#include <utility>
#include <type_traits>

namespace kcheck::worker {

using nlohmann::json;

// Each message type lists its members once, as (key, member) pairs, in a
// `fields` overload; both directions of the codec are made from that list,
// so a member cannot be written and not read.

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

#define KCHECK_PROTOCOL_FIELDS(Type, ...)                                        \
  template <class Self, class Field>                                             \
  requires std::same_as<std::remove_const_t<Self>, Type>                         \
  void fields(Self& v, Field&& field) { __VA_ARGS__; }                           \
  void to_json(json& object, const Type& value) { write_fields(object, value); } \
  void from_json(const json& object, Type& value) { read_fields(object, value); }

KCHECK_PROTOCOL_FIELDS(CasePlan, field("size", v.size); field("shape", v.shape); field("args", v.args))
KCHECK_PROTOCOL_FIELDS(Tolerance, field("rtol", v.rtol); field("atol", v.atol))
KCHECK_PROTOCOL_FIELDS(OpPlan, field("name", v.name); field("schema", v.schema); field("reference", v.reference);
                       field("baseline", v.baseline); field("dtypes", v.dtypes); field("tolerance", v.tolerance);
                       field("bytes", v.bytes_args); field("cases", v.cases))
KCHECK_PROTOCOL_FIELDS(BenchSettings, field("enabled", v.enabled); field("samples", v.samples);
                       field("target_sample_seconds", v.target_sample_seconds))
KCHECK_PROTOCOL_FIELDS(WorkerPlan, field("backend", v.backend); field("seed", v.seed); field("bench", v.bench);
                       field("ops", v.ops))
KCHECK_PROTOCOL_FIELDS(WorkerInfo, field("torch_version", v.torch_version); field("cxx11_abi", v.cxx11_abi);
                       field("backends", v.backends); field("baselines", v.baselines))
KCHECK_PROTOCOL_FIELDS(RegisteredOp, field("name", v.name); field("namespace", v.op_namespace))
KCHECK_PROTOCOL_FIELDS(SmokeCall, field("called", v.called); field("error", v.error))
KCHECK_PROTOCOL_FIELDS(CaseCheck, field("dtype", v.dtype); field("size", v.size); field("shape", v.shape);
                       field("max_abs_error", v.max_abs_error); field("relative_error", v.relative_error);
                       field("rtol", v.rtol); field("atol", v.atol); field("passed", v.passed);
                       field("problem", v.problem); field("guard_violation", v.guard_violation);
                       field("device_error", v.device_error))
KCHECK_PROTOCOL_FIELDS(OpResult, field("op", v.op); field("has_kernel", v.has_kernel); field("spec", v.spec);
                       field("schema_problem", v.schema_problem); field("smoke", v.smoke); field("checks", v.checks))
KCHECK_PROTOCOL_FIELDS(CaseTiming, field("op", v.op); field("dtype", v.dtype); field("size", v.size);
                       field("shape", v.shape); field("median_us", v.median_us); field("spread_us", v.spread_us);
                       field("samples", v.samples); field("buffer_sets", v.buffer_sets); field("bytes", v.bytes);
                       field("eager", v.eager); field("eager_problem", v.eager_problem);
                       field("eager_median_us", v.eager_median_us); field("eager_spread_us", v.eager_spread_us))
KCHECK_PROTOCOL_FIELDS(DeviceLimits, field("name", v.name); field("backend", v.backend);
                       field("copy_bandwidth_gbs", v.copy_bandwidth_gbs); field("matmul_tflops", v.matmul_tflops);
                       field("matmul_dtype", v.matmul_dtype))
KCHECK_PROTOCOL_FIELDS(WorkerResult, field("stage", v.stage); field("load_error", v.load_error);
                       field("libpython_problem", v.libpython_problem); field("new_ops", v.new_ops);
                       field("changed_ops", v.changed_ops); field("new_fallbacks", v.new_fallbacks);
                       field("running", v.running); field("run_problem", v.run_problem); field("device", v.device);
                       field("ops", v.ops); field("benchmarks", v.benchmarks))

#undef KCHECK_PROTOCOL_FIELDS

// An argument is a tensor (a shape, and a value range when it is an input)
// or a float scalar (a value): the wire form says which by its keys.
void to_json(json& object, const ArgPlan& value) {
  object = {{"name", value.name}};
  if (!value.is_tensor) {
    object["value"] = value.value;
    return;
  }
  object["shape"] = value.shape;
  object["output"] = value.output;
  if (!value.output) {
    object["low"] = value.low;
    object["high"] = value.high;
  }
}

void from_json(const json& object, ArgPlan& value) {
  expect_object(object);
  take(object, "name", value.name);
  value.is_tensor = object.contains("shape");
  if (!value.is_tensor) {
    take(object, "value", value.value);
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
