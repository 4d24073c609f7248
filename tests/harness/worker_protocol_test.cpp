// The kcheck <-> kcheck_worker protocol (checker/harness/worker_protocol.h):
// every member of every message survives the wire both ways, and a result
// file that breaks the schema is refused, never read as facts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "checker/harness/worker_protocol.h"

namespace kcheck::worker {
namespace {

using nlohmann::json;

WorkerResult full_result() {
  WorkerResult result;
  result.stage = WorkerStage::done;
  result.load_error = "none";
  result.libpython_problem = "no libpython known";
  result.new_ops = {{"_relu_abc::relu", "_relu_abc"}};
  result.changed_ops = {{"aten::add.Tensor", "aten"}};
  result.new_fallbacks = {"CPU"};
  result.running = "relu float32 7x3";
  result.run_problem = "no GPU";
  result.device = DeviceLimits{"NVIDIA H100", "cuda", 3000.5, 700.25, "bfloat16"};
  OpResult op;
  op.op = "_relu_abc::relu";
  op.schema = "_relu_abc::relu(Tensor(a!) out, Tensor input) -> ()";
  op.dispatch_keys = {"CPU", "Meta"};
  op.has_kernel = false;
  op.spec = "relu";
  op.schema_problem = "differs";
  op.smoke = SmokeCall{true, "raised"};
  op.checks.push_back({"float16", "small", "7x3", 0.5, -1, 1e-3, 1e-5, true, "left elements unwritten", true, "sticky",
                       true, "the reference raised"});
  result.ops = {op};
  CaseTiming timing{
      "relu", "bfloat16", "large", "16384x8192", 204.5, 3.25, 30, 4, 3, 536870912, "torch.relu(x, out=out)",
      "",     190.0,      2.0};
  result.benchmarks = {timing};
  return result;
}

TEST(WorkerProtocol, EveryResultMemberSurvivesTheRoundTrip) {
  const WorkerResult sent = full_result();
  const json wire = sent;
  const WorkerResult got = wire.get<WorkerResult>();
  EXPECT_EQ(json(got), wire);
  EXPECT_EQ(got.stage, WorkerStage::done);
  ASSERT_TRUE(got.device.has_value());
  EXPECT_EQ(got.device->matmul_tflops, 700.25);
  ASSERT_EQ(got.ops.size(), 1u);
  ASSERT_TRUE(got.ops[0].smoke.has_value());
  EXPECT_EQ(got.ops[0].smoke->error, "raised");
  EXPECT_TRUE(got.ops[0].checks.at(0).guard_violation);
  EXPECT_EQ(got.ops[0].checks.at(0).device_error, "sticky");
  EXPECT_TRUE(got.ops[0].checks.at(0).unsupported);
  EXPECT_EQ(got.ops[0].checks.at(0).reference_problem, "the reference raised");
  EXPECT_EQ(got.ops[0].dispatch_keys, (std::vector<std::string>{"CPU", "Meta"}));
  EXPECT_EQ(got.benchmarks.at(0).bytes, 536870912);
  EXPECT_EQ(got.benchmarks.at(0).buffer_sets, 4);
  EXPECT_EQ(got.benchmarks.at(0).output_placements, 3);
  EXPECT_EQ(got.new_ops.at(0).op_namespace, "_relu_abc");
  EXPECT_EQ(wire["new_ops"][0]["namespace"], "_relu_abc");
}

TEST(WorkerProtocol, EveryPlanMemberSurvivesTheRoundTrip) {
  WorkerPlan plan;
  plan.backend = "cuda";
  plan.seed = (1ull << 53) - 1;
  plan.bench = {true, 12, 5e-3};
  plan.python_references = {"/venv/bin/python", "/scratch/reference_runner.py", "/repo"};
  OpPlan op{"fatrelu_and_mul",
            "fatrelu_and_mul(Tensor! out, Tensor input, float threshold) -> ()",
            "torch.where(input > threshold, input, 0)",
            ReferenceKind::expression,
            "native",
            "fatrelu_and_mul",
            {"float32", "bfloat16"},
            {{"bfloat16", {1.6e-2, 1e-2}}},
            {},
            {"out", "input"}};
  CasePlan small{"small", "7x6", {}};
  small.args.push_back({"out", true, true, {7, 3}, -1, 1, 0});
  small.args.push_back({"input", true, false, {7, 6}, -2, 2, 0});
  small.args.push_back({"threshold", false, false, {}, -1, 1, 0.25});
  small.args.push_back({"block", false, false, {}, -1, 1, 64, true});
  op.cases = {small};
  plan.ops = {op};
  const json wire = plan;
  const WorkerPlan got = wire.get<WorkerPlan>();
  EXPECT_EQ(json(got), wire);
  EXPECT_EQ(got.seed, plan.seed);
  EXPECT_EQ(got.ops.at(0).bytes_args, (std::vector<std::string>{"out", "input"}));
  EXPECT_EQ(got.ops.at(0).tolerance.at("bfloat16").rtol, 1.6e-2);
  const ArgPlan& input = got.ops.at(0).cases.at(0).args.at(1);
  EXPECT_TRUE(input.is_tensor);
  EXPECT_EQ(input.low, -2);
  EXPECT_FALSE(got.ops.at(0).cases.at(0).args.at(2).is_tensor);
  EXPECT_EQ(got.ops.at(0).cases.at(0).args.at(2).value, 0.25);
  EXPECT_TRUE(got.ops.at(0).cases.at(0).args.at(3).integer);
  EXPECT_EQ(wire["ops"][0]["cases"][0]["args"][3]["int"], 64) << "an int scalar goes on the wire as an integer";
  EXPECT_EQ(got.ops.at(0).reference_kind, ReferenceKind::expression);
  EXPECT_EQ(got.python_references.helper, "/scratch/reference_runner.py");
  EXPECT_FALSE(wire["ops"][0]["cases"][0]["args"][0].contains("low")) << "an output has no value range";
}

TEST(WorkerProtocol, AnUnknownReferenceKindIsRefusedNotReadAsABuiltInOne) {
  EXPECT_THROW((void)json::parse(R"({"name": "x", "reference_kind": "shell"})").get<OpPlan>(), json::exception);
  EXPECT_EQ(json::parse(R"({"name": "x"})").get<OpPlan>().reference_kind, ReferenceKind::builtin)
      << "a plan without the member (an earlier kcheck) names a built-in reference";
}

TEST(WorkerProtocol, InfoSurvivesTheRoundTrip) {
  const WorkerInfo info{"2.11.0", false, {"cpu", "cuda"}};
  EXPECT_EQ(json(info), json::parse(R"({"torch_version": "2.11.0", "cxx11_abi": false, "backends": ["cpu", "cuda"]})"))
      << "every member on the wire, and nothing kcheck does not read";
  const WorkerInfo got = json(info).get<WorkerInfo>();
  EXPECT_EQ(json(got), json(info));
}

TEST(WorkerProtocol, AMissingMemberIsItsDefaultAndAnUnknownStageIsUnknown) {
  const WorkerResult got = json::parse(R"({"stage": "exploded"})").get<WorkerResult>();
  EXPECT_EQ(got.stage, WorkerStage::unknown);
  EXPECT_FALSE(got.device.has_value());
  EXPECT_TRUE(got.ops.empty());
  EXPECT_EQ(json::parse(R"({})").get<WorkerResult>().stage, WorkerStage::unknown);
  EXPECT_TRUE(json::parse(R"({"ops": [{"op": "x"}]})").get<WorkerResult>().ops.at(0).has_kernel);
}

TEST(WorkerProtocol, AMemberOfTheWrongTypeIsRefused) {
  for (const char* broken :
       {R"({"new_ops": "all of them"})", R"({"ops": [{"checks": [{"passed": "yes"}]}]})", R"({"benchmarks": [7]})",
        R"({"device": {"copy_bandwidth_gbs": "fast"}})", R"({"new_fallbacks": [1]})"}) {
    EXPECT_THROW((void)json::parse(broken).get<WorkerResult>(), json::exception) << broken;
  }
}

}  // namespace
}  // namespace kcheck::worker
