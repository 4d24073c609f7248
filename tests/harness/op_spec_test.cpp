// Op specs (reference/ops/*.toml, a repository's kcheck-ops.toml) and the
// worker plan made from them.
#include "checker/harness/op_spec.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace kcheck {
namespace {

namespace fs = std::filesystem;

const char* kSpec = R"toml(
[defaults]
dtypes = ["float32", "bfloat16"]
[defaults.sizes]
small = { n = 3, d = 5 }
large = { n = 64, d = 128 }
[defaults.tolerance]
float32 = { rtol = 1e-5, atol = 1e-6 }
bfloat16 = { rtol = 1e-2, atol = 1e-2 }

[[op]]
name = "silu_and_mul"
schema = "silu_and_mul(Tensor! out, Tensor input) -> ()"
reference = "silu_and_mul"
args = [
  { name = "out", output = true, shape = ["n", "d"] },
  { name = "input", shape = ["n", "2*d"], range = [-2.0, 2.0] },
  { name = "threshold", value = 0.5 },
]
bytes = ["out", "input"]
)toml";

TEST(OpSpec, ABaselineMustBeOneKcheckKnows) {
  std::string spec = kSpec;
  spec.replace(spec.find("reference = \"silu_and_mul\""), 0, "baseline = \"silu_and_mul\"\n");
  EXPECT_EQ(parse_op_specs(spec, "my-ops.toml").find("silu_and_mul")->baseline, "silu_and_mul");
  spec.replace(spec.find("baseline = \"silu_and_mul\""), 25, "baseline = \"silu_and_mu\"");
  try {
    parse_op_specs(spec, "my-ops.toml");
    ADD_FAILURE() << "an unknown baseline was accepted";
  } catch (const OpSpecError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("my-ops.toml:11: op 'silu_and_mul': no baseline named 'silu_and_mu' "
                        "(reference/ops/baseline_forms.cpp has silu_and_mul, gelu_and_mul,"),
              std::string::npos)
        << error.what();
  }
}

TEST(OpSpec, ABaselineOfTheRepositorysOwnIsAnExpressionOrAPythonFunction) {
  std::string spec = kSpec;
  spec.replace(spec.find("reference = \"silu_and_mul\""), 0,
               "baseline = \"F.silu(input[..., :d]) * input[..., d:]\"\n");
  const OpSpec expression = *parse_op_specs(spec, "my-ops.toml").find("silu_and_mul");
  EXPECT_EQ(expression.baseline_kind, worker::ReferenceKind::expression);
  const worker::WorkerPlan plan = worker_plan(parse_op_specs(spec, "my-ops.toml"), {});
  EXPECT_EQ(plan.ops.at(0).baseline, "") << "the worker does not time the repository's baselines";
  spec.replace(spec.find("baseline = \"F.silu"),
               spec.find('\n', spec.find("baseline = \"F.silu")) - spec.find("baseline = \"F.silu"),
               "baseline = \"python:bench/ref.py:silu_and_mul\"");
  EXPECT_EQ(parse_op_specs(spec, "my-ops.toml").find("silu_and_mul")->baseline_kind, worker::ReferenceKind::python);
  spec.replace(spec.find("python:bench/ref.py"), 19, "python:../ref.py");
  try {
    parse_op_specs(spec, "my-ops.toml");
    ADD_FAILURE() << "a baseline file outside the repository was accepted";
  } catch (const OpSpecError& error) {
    EXPECT_NE(std::string(error.what()).find("baseline: '../ref.py' must be a path inside the repository"),
              std::string::npos)
        << error.what();
  }
}

std::string error_of(const std::string& text) {
  try {
    parse_op_specs(text, "my-ops.toml");
  } catch (const OpSpecError& error) {
    return error.what();
  }
  return "";
}

TEST(OpSpec, ReadsArgsSizesTolerancesFromTheOpAndItsDefaults) {
  OpSpecSet set = parse_op_specs(kSpec, "my-ops.toml");
  const OpSpec* spec = set.find("silu_and_mul");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->dtypes, (std::vector<std::string>{"float32", "bfloat16"}));
  ASSERT_EQ(spec->args.size(), 3u);
  EXPECT_TRUE(spec->args[0].output);
  EXPECT_EQ(spec->args[1].shape, (std::vector<std::string>{"n", "2*d"}));
  EXPECT_DOUBLE_EQ(spec->args[1].low, -2.0);
  EXPECT_FALSE(spec->args[2].is_tensor);
  EXPECT_DOUBLE_EQ(spec->args[2].value, 0.5);
  EXPECT_DOUBLE_EQ(spec->tolerance.at("bfloat16").rtol, 1e-2);
  EXPECT_EQ(spec->sizes.size(), 2u);
}

TEST(OpSpec, DimensionsAreProductsOfSizeVariablesAndIntegers) {
  std::map<std::string, std::int64_t> size = {{"n", 7}, {"d", 129}};
  EXPECT_EQ(evaluate_dimension("n", size), 7);
  EXPECT_EQ(evaluate_dimension("2*d", size), 258);
  EXPECT_EQ(evaluate_dimension(" 3 * n * d ", size), 3 * 7 * 129);
  EXPECT_THROW(evaluate_dimension("k", size), OpSpecError);
  EXPECT_THROW(evaluate_dimension("2**d", size), OpSpecError);
  EXPECT_THROW(evaluate_dimension("0*d", size), OpSpecError);
  EXPECT_THROW(evaluate_dimension("1099511627776*2", size), OpSpecError);
}

TEST(OpSpec, MistakesNameTheFileLineAndWhat) {
  EXPECT_NE(error_of("[[op]]\nname = 1\n").find("my-ops.toml:1"), std::string::npos) << error_of("[[op]]\nname = 1\n");
  std::string no_args = std::string(kSpec).replace(std::string(kSpec).find("args = ["), 8, "argz = [");
  EXPECT_NE(error_of(no_args).find("needs 'args'"), std::string::npos) << error_of(no_args);
  std::string bad_dimension = std::string(kSpec).replace(std::string(kSpec).find("\"2*d\""), 5, "\"2*k\"");
  EXPECT_NE(error_of(bad_dimension).find("uses 'k'"), std::string::npos) << error_of(bad_dimension);
  std::string bad_bytes =
      std::string(kSpec).replace(std::string(kSpec).find("bytes = [\"out\""), 14, "bytes = [\"threshold\"");
  EXPECT_NE(error_of(bad_bytes).find("no tensor argument"), std::string::npos) << error_of(bad_bytes);
  EXPECT_NE(error_of("x = [").find("my-ops.toml:1"), std::string::npos);
  std::string no_tolerance = std::string(kSpec).replace(std::string(kSpec).find("bfloat16 = { rtol"), 8, "float16 ");
  EXPECT_NE(error_of(no_tolerance).find("no tolerance for bfloat16"), std::string::npos) << error_of(no_tolerance);
  // A float size, in int64's range or far out of it (which toml++ converted
  // with undefined behaviour; found by fuzz_ops_spec), is refused.
  for (const char* extent : {"7.0", "7.7e38"}) {
    std::string float_size =
        std::string(kSpec).replace(std::string(kSpec).find("n = 3,"), 6, std::string("n = ") + extent + ",");
    EXPECT_NE(error_of(float_size).find("size variable 'n' must be a positive integer"), std::string::npos)
        << error_of(float_size);
  }
}

TEST(OpSpec, BuiltInSpecsCoverEveryReferenceKernelOp) {
  OpSpecSet set = builtin_op_specs();
  for (const char* op : {"relu", "rms_norm", "silu_and_mul", "mul_and_silu", "gelu_and_mul", "gelu_tanh_and_mul",
                         "fatrelu_and_mul", "gelu_new", "gelu_fast", "gelu_quick", "gelu_tanh", "silu", "gelu"}) {
    const OpSpec* spec = set.find(op);
    ASSERT_NE(spec, nullptr) << op;
    EXPECT_EQ(spec->dtypes, (std::vector<std::string>{"float32", "float16", "bfloat16"})) << op;
    EXPECT_EQ(spec->sizes.size(), 3u) << op;
    EXPECT_EQ(spec->source.rfind("embedded:reference/ops/", 0), 0u) << spec->source;
  }
}

// Issue #28 item 5: a kcheck-ops.toml linked to a 3 GB file was read whole.
TEST(OpSpec, TheRepositorysSpecFileIsARegularFileInsideItReadBounded) {
  const fs::path base = fs::path(KCHECK_BINARY_DIR) / "op-spec-hostile";
  fs::remove_all(base);
  const fs::path repository = base / "repository";
  fs::create_directories(repository);
  auto refusal = [&repository] {
    try {
      op_specs_for(repository);
    } catch (const OpSpecError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  std::ofstream(base / "elsewhere.toml") << kSpec;
  fs::create_symlink(base / "elsewhere.toml", repository / "kcheck-ops.toml");
  EXPECT_NE(refusal().find("kcheck-ops.toml: not a regular file inside the repository"), std::string::npos)
      << refusal();
  fs::remove(repository / "kcheck-ops.toml");
  ASSERT_EQ(::mkfifo((repository / "kcheck-ops.toml").c_str(), 0600), 0);
  EXPECT_NE(refusal().find("not a regular file inside the repository"), std::string::npos) << refusal();
  fs::remove(repository / "kcheck-ops.toml");
  std::ofstream(repository / "kcheck-ops.toml") << kSpec;
  fs::resize_file(repository / "kcheck-ops.toml", kMaxOpSpecBytes + 1);  // sparse: nothing is written
  EXPECT_NE(refusal().find("above the bound"), std::string::npos) << refusal();
  fs::remove_all(base);
}

TEST(OpSpec, ARepositorysOwnSpecReplacesTheBuiltInOne) {
  fs::path repository = fs::path(KCHECK_BINARY_DIR) / "op-spec-test-repository";
  fs::create_directories(repository);
  std::string own = std::string(kSpec);
  own.replace(own.find("silu_and_mul\"\nschema = \"silu_and_mul"), 36, "relu\"\nschema = \"relu");
  own.replace(own.find("reference = \"silu_and_mul\""), 26, "reference = \"relu\"");
  std::ofstream(repository / "kcheck-ops.toml") << own;
  OpSpecSet set = op_specs_for(repository);
  ASSERT_NE(set.find("relu"), nullptr);
  EXPECT_EQ(set.find("relu")->source, (repository / "kcheck-ops.toml").string());
  EXPECT_EQ(set.find("relu")->dtypes.size(), 2u);
  EXPECT_NE(set.find("gelu"), nullptr) << "the other built-in specs stay";
}

TEST(OpSpec, WorkerPlanHasConcreteShapesForTheChosenSizes) {
  RunSettings settings;
  settings.backend = "cuda";
  settings.seed = 99;
  settings.sizes = {"large"};
  settings.bench = true;
  worker::WorkerPlan plan = worker_plan(parse_op_specs(kSpec, "my-ops.toml"), settings);
  EXPECT_EQ(plan.backend, "cuda");
  EXPECT_EQ(plan.seed, 99u);
  EXPECT_TRUE(plan.bench.enabled);
  ASSERT_EQ(plan.ops.size(), 1u);
  const auto& cases = plan.ops[0].cases;
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].size, "large");
  EXPECT_EQ(cases[0].shape, "64x256");
  ASSERT_EQ(cases[0].args.size(), 3u);
  EXPECT_EQ(cases[0].args[0].shape, (std::vector<std::int64_t>{64, 128}));
  EXPECT_EQ(cases[0].args[1].shape, (std::vector<std::int64_t>{64, 256}));
  EXPECT_FALSE(cases[0].args[2].is_tensor);
  EXPECT_EQ(cases[0].args[2].value, 0.5);
  // On the wire (what the worker decodes): a tensor by its shape, a scalar by its value.
  const nlohmann::json wire = plan;
  EXPECT_EQ(wire["ops"][0]["cases"][0]["args"][2], (nlohmann::json{{"name", "threshold"}, {"value", 0.5}}))
      << wire["ops"][0]["cases"][0]["args"].dump();
}

// Issue #27: a repository's own references, read without recompiling kcheck.
TEST(OpSpec, AReferenceIsABuiltInNameARepositoryFunctionOrAnExpression) {
  EXPECT_EQ(reference_kind_of("silu_and_mul"), worker::ReferenceKind::builtin);
  EXPECT_EQ(reference_kind_of("python:torch-ext/relu/reference.py:relu"), worker::ReferenceKind::python);
  EXPECT_EQ(reference_kind_of("torch.relu(input)"), worker::ReferenceKind::expression);
  EXPECT_EQ(reference_kind_of("x * factor"), worker::ReferenceKind::expression);
  for (const char* refused :
       {"python:/etc/passwd.py:f", "python:../outside.py:f", "python:a/../../b.py:f", "python:reference.py",
        "python:reference.py:not-a-name", "python:notes.txt:f", "x\n* 2", "x \u202e* 2"})
    EXPECT_THROW(reference_kind_of(refused), OpSpecError) << refused;
  EXPECT_THROW(reference_kind_of(std::string(5000, 'x') + "+1"), OpSpecError) << "longer than 4000 characters";
}

std::string own_spec(const std::string& reference, const std::string& extra = "") {
  std::string spec = kSpec;
  spec.replace(spec.find("reference = \"silu_and_mul\""), 26, "reference = " + reference + "\n" + extra);
  return spec;
}

TEST(OpSpec, ARepositorysBareReferenceNameMustBeBuiltInAndSaysWhatElseItCanBe) {
  const std::string error = error_of(own_spec("\"my_silu\""));
  EXPECT_NE(error.find("'my_silu' is no built-in reference; a reference of your own is \"python:FILE:FUNCTION\""),
            std::string::npos)
      << error;
  EXPECT_EQ(error_of(own_spec("\"silu_and_mul\"")), "");
}

TEST(OpSpec, ReferenceDtypeAndIntArgumentsAndIdentifierNames) {
  OpSpecSet set = parse_op_specs(own_spec("\"input * threshold\"", "reference-dtype = \"native\""), "my-ops.toml");
  EXPECT_EQ(set.find("silu_and_mul")->reference_kind, worker::ReferenceKind::expression);
  EXPECT_EQ(set.find("silu_and_mul")->reference_dtype, "native");
  EXPECT_NE(error_of(own_spec("\"input\"", "reference-dtype = \"int8\"")).find("reference-dtype must be"),
            std::string::npos);
  std::string with_int = kSpec;
  with_int.replace(with_int.find("value = 0.5"), 11, "value = 3");
  const OpSpec& spec = *parse_op_specs(with_int, "my-ops.toml").find("silu_and_mul");
  EXPECT_TRUE(spec.args[2].integer);
  EXPECT_FALSE(parse_op_specs(kSpec, "my-ops.toml").find("silu_and_mul")->args[2].integer);
  for (const char* name : {"__class__", "import", "torch", "2x", "a-b"}) {
    std::string bad = kSpec;
    bad.replace(bad.find("name = \"threshold\""), 18, std::string("name = \"") + name + "\"");
    EXPECT_NE(error_of(bad).find("must be an identifier"), std::string::npos) << name << ": " << error_of(bad);
  }
}

TEST(OpSpec, APythonReferenceFileMustBeARegularFileInsideTheRepository) {
  const fs::path repository = fs::path(KCHECK_BINARY_DIR) / "op-spec-test-python-reference";
  fs::remove_all(repository);
  fs::create_directories(repository / "torch-ext");
  std::ofstream(repository / "torch-ext" / "reference.py") << "def silu_and_mul(input):\n    return input\n";
  std::ofstream(repository / "kcheck-ops.toml") << own_spec("\"python:torch-ext/reference.py:silu_and_mul\"");
  const OpSpecSet set = op_specs_for(repository);
  EXPECT_EQ(set.find("silu_and_mul")->reference_kind, worker::ReferenceKind::python);
  for (const worker::OpPlan& op : worker_plan(set, RunSettings{}).ops) {
    if (op.name != "silu_and_mul") continue;
    EXPECT_EQ(op.reference, "torch-ext/reference.py:silu_and_mul") << "the worker gets FILE:FUNCTION";
  }
  fs::create_symlink("/etc/hostname", repository / "linked.py");
  for (const char* file : {"missing.py", "linked.py"}) {
    std::ofstream(repository / "kcheck-ops.toml") << own_spec(std::string("\"python:") + file + ":silu_and_mul\"");
    try {
      op_specs_for(repository);
      ADD_FAILURE() << file << " was accepted";
    } catch (const OpSpecError& error) {
      EXPECT_NE(std::string(error.what()).find("is no file inside the repository"), std::string::npos) << error.what();
    }
  }
}

}  // namespace
}  // namespace kcheck
