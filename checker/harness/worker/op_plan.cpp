#include "checker/harness/worker/op_plan.h"

namespace kcheck::worker {

WorkerPlan worker_plan_from_json(const nlohmann::json& json) {
  WorkerPlan plan;
  plan.backend = json.at("backend").get<std::string>();
  plan.seed = json.at("seed").get<std::uint64_t>();
  const auto& bench = json.at("bench");
  plan.bench.enabled = bench.at("enabled").get<bool>();
  plan.bench.samples = bench.at("samples").get<int>();
  plan.bench.target_sample_seconds = bench.at("target_sample_seconds").get<double>();
  for (const auto& item : json.at("ops")) {
    OpPlan op;
    op.name = item.at("name").get<std::string>();
    op.schema = item.at("schema").get<std::string>();
    op.reference = item.at("reference").get<std::string>();
    op.baseline = item.at("baseline").get<std::string>();
    op.dtypes = item.at("dtypes").get<std::vector<std::string>>();
    for (const auto& [dtype, tolerance] : item.at("tolerance").items())
      op.tolerance[dtype] = {tolerance.at("rtol").get<double>(), tolerance.at("atol").get<double>()};
    op.bytes_args = item.at("bytes").get<std::vector<std::string>>();
    for (const auto& case_item : item.at("cases")) {
      CasePlan plan_case;
      plan_case.size = case_item.at("size").get<std::string>();
      plan_case.shape = case_item.at("shape").get<std::string>();
      for (const auto& arg_item : case_item.at("args")) {
        ArgPlan arg;
        arg.name = arg_item.at("name").get<std::string>();
        arg.is_tensor = arg_item.contains("shape");
        if (arg.is_tensor) {
          arg.shape = arg_item.at("shape").get<std::vector<std::int64_t>>();
          arg.output = arg_item.value("output", false);
          arg.low = arg_item.value("low", -1.0);
          arg.high = arg_item.value("high", 1.0);
        } else {
          arg.value = arg_item.at("value").get<double>();
        }
        plan_case.args.push_back(std::move(arg));
      }
      op.cases.push_back(std::move(plan_case));
    }
    plan.ops.push_back(std::move(op));
  }
  return plan;
}

}  // namespace kcheck::worker
