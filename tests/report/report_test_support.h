// Helpers for the report tests: hand-built reports, and running the kcheck
// executable on tree fixtures as a user would.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "checker/core/report.h"
#include "tests/support/kcheck_command.h"

namespace kcheck::testing {

namespace fs = std::filesystem;

using kcheck_test::read_text;
using kcheck_test::RunResult;
using kcheck_test::shell_quoted;

inline fs::path scratch_dir() { return kcheck_test::scratch_dir("report"); }

inline fs::path write_scratch(const std::string& name, const std::string& text) {
  fs::path path = scratch_dir() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

inline RunResult run_command(const std::string& command) { return kcheck_test::run_command_in(scratch_dir(), command); }

inline RunResult kcheck(const std::string& arguments) { return kcheck_test::run_kcheck_in(scratch_dir(), arguments); }

inline std::string fixture(const std::string& path) { return kcheck_test::tree_fixture(path); }

// Runs a Python test tool from tests/ with the repo venv's python.
inline RunResult venv_python(const std::string& script, const std::string& arguments) {
  return run_command(std::string("'") + KCHECK_VENV_PYTHON + "' '" + KCHECK_SOURCE_DIR + "/" + script + "' " +
                     arguments);
}

// A two-variant report with a Python finding (line), an ELF finding
// (symbol), a metadata finding (JSON pointer), a tree-level one and a
// suppressed one.
inline Report sample_report() {
  Report report;
  report.tool_version = "0.1.0";
  report.policy_name = "hub";
  report.policy_source = "embedded:rules/policies/hub.toml";
  report.input = "my kernel";
  report.audited_root = "/tmp/my kernel/build";
  report.scope = "tree";
  report.rules_run = {"KE001", "KL005", "KL006", "KM002", "KP003"};
  report.variants = {{"torch212-cxx11-cpu-x86_64-linux", "torch212-cxx11-cpu-x86_64-linux", "cpu", {}},
                     {"torch213-cxx11-cu130-x86_64-linux", "torch213-cxx11-cu130-x86_64-linux", "cuda", {}}};
  const std::string cpu = "torch212-cxx11-cpu-x86_64-linux";
  const std::string cuda = "torch213-cxx11-cu130-x86_64-linux";
  report.findings = {
      {"KP003",
       Severity::error,
       "match statement needs Python 3.10",
       cpu,
       cpu + "/relu/helpers.py",
       {.line = 7, .column = 5}},
      {"KE001",
       Severity::error,
       "exp@GLIBC_2.29 is above GLIBC 2.28",
       cuda,
       cuda + "/_relu.abi3.so",
       {.symbol = "exp@GLIBC_2.29", .section = ".dynsym"}},
      {"KM002",
       Severity::warning,
       "python-depends is missing",
       cuda,
       cuda + "/metadata.json",
       {.json_pointer = "/python-depends"}},
      {"KL006", Severity::error, "required variant torch213-cxx11-cpu-x86_64-linux is missing", "", "", {}},
      {"KL005",
       Severity::warning,
       "file must not ship: notes #1.txt",
       cpu,
       cpu + "/notes #1.txt",
       {},
       true,
       "kept on purpose"},
  };
  finalise_report(report);
  return report;
}

// A `kcheck bench` report of one CUDA variant: device limits, op checks
// (one failing, with its KD002 finding) and benchmark results for two ops in
// two dtypes. The numbers are of the size an H100 gives. torch.compile:
// silu_and_mul bfloat16 both modes timed (max-autotune faster), float32 one
// mode out of time; gelu_and_mul bfloat16 not tried (no Python), float32
// faster than the kernel and bound by Python's call overhead.
// A `kcheck run` report (issue #27): one variant run with an op verified
// against a reference, one only smoke-called (KD007), the kernel's own
// tests with one failure (KD008), and one variant not run.
inline Report sample_run_report() {
  Report report;
  report.tool_version = "0.1.0";
  report.policy_name = "hub";
  report.input = "scale";
  report.audited_root = "/tmp/scale/build";
  report.scope = "tree";
  report.rules_run = {"KD007", "KD008"};
  const std::string cpu = "torch211-cxx11-cpu-x86_64-linux";
  const std::string cuda = "torch211-cxx11-cu130-x86_64-linux";
  report.variants = {{cpu, cpu, "cpu", {}}, {cuda, cuda, "cuda", {}}};
  report.findings = {
      {"KD007",
       Severity::warning,
       "_scale_abc::shift was not verified: no reference",
       cpu,
       cpu + "/_scale.abi3.so",
       {.symbol = "_scale_abc::shift"}},
      {"KD008",
       Severity::error,
       "test tests/test_scale.py::test_big failed: assert 2 == 3",
       cpu,
       cpu + "/_scale.abi3.so",
       {.symbol = "tests/test_scale.py::test_big"}},
  };
  report.dynamic.seed = 7;
  report.dynamic.runs = {{cpu, true, "", 2, 1, "/venv/bin/python", "2.11.0+cpu", "torch2.11.0-cxx11-cpu-0123456789ab"},
                         {cuda, false, "not run here: needs the cuda backend", 0, 0, "", "", ""}};
  report.dynamic.ops = {
      {cpu,
       "_scale_abc::scale",
       "_scale_abc::scale(Tensor x, float f) -> Tensor",
       {"CPU"},
       "reference",
       true,
       "x * f",
       4,
       4,
       {"float16"},
       "",
       ""},
      {cpu,
       "_scale_abc::shift",
       "_scale_abc::shift(Tensor x) -> Tensor",
       {"CPU"},
       "smoke",
       false,
       "",
       0,
       0,
       {},
       "no reference",
       ""},
  };
  report.dynamic.tests = {{cpu, "tests/test_scale.py::test_small", "passed", "", 0.5},
                          {cpu, "tests/test_scale.py::test_big", "failed", "assert 2 == 3", 0.25},
                          {cpu, "tests/test_scale.py::test_gpu", "skipped", "needs a GPU", 0}};
  return report;
}

inline Report sample_bench_report() {
  Report report;
  report.tool_version = "0.1.0";
  report.policy_name = "hub";
  report.policy_source = "embedded:rules/policies/hub.toml";
  report.input = "reference/kernels/activation";
  report.audited_root = "/tmp/activation/build";
  report.scope = "tree";
  report.rules_run = {"KB001", "KD002"};
  const std::string cuda = "torch211-cxx11-cu130-x86_64-linux";
  report.variants = {{cuda, cuda, "cuda", {}}};
  report.findings = {
      {"KD002",
       Severity::error,
       "gelu_fast float16 [4096x8192]: max abs error 0.031 > 0.01 (seed 1234)",
       cuda,
       cuda + "/_activation_cuda_0a1b2c3.abi3.so",
       {.symbol = "activation_0a1b2c3::gelu_fast"}},
      {"KB001",
       Severity::note,
       "silu_and_mul bfloat16 [16384x16384]: 155.5 us, 2590 GB/s, 89% of peak, 2.57x",
       cuda,
       cuda + "/_activation_cuda_0a1b2c3.abi3.so",
       {.symbol = "activation_0a1b2c3::silu_and_mul"}},
  };
  report.dynamic.seed = 1234;
  report.dynamic.devices = {{cuda, "NVIDIA H100 80GB HBM3", "cuda", 2905.0, 756.0, "bfloat16"}};
  report.dynamic.op_checks = {
      {cuda, "silu_and_mul", "bfloat16", "16384x16384", 0.0078, 0.0021, true},
      {cuda, "gelu_fast", "float16", "4096x8192", 0.031, 0.0042, false},
  };
  auto result = [&](std::string op, std::string dtype, double us, double eager_us, double bytes) {
    BenchmarkResult benchmark;
    benchmark.variant = cuda;
    benchmark.op = std::move(op);
    benchmark.dtype = std::move(dtype);
    benchmark.shape = "16384x16384";
    benchmark.repetitions = 100;
    benchmark.median_us = us;
    benchmark.spread_us = us * 0.01;
    benchmark.bytes = bytes;
    benchmark.achieved_gbs = bytes / us / 1e3;
    benchmark.percent_of_peak = 100.0 * benchmark.achieved_gbs / 2905.0;
    benchmark.eager = "F.silu(x[..., :d]) * x[..., d:]";
    benchmark.eager_median_us = eager_us;
    benchmark.eager_spread_us = eager_us * 0.02;
    benchmark.speedup = eager_us / us;
    return benchmark;
  };
  report.dynamic.benchmarks = {
      result("silu_and_mul", "bfloat16", 155.5, 400.4, 402653184.0),
      result("silu_and_mul", "float32", 290.7, 543.7, 805306368.0),
      result("gelu_and_mul", "bfloat16", 157.0, 401.0, 402653184.0),
      result("gelu_and_mul", "float32", 292.0, 545.0, 805306368.0),
  };
  const std::string out_of_time = "not finished within the torch.compile time bound (900 s, --compile-timeout)";
  auto compiled = [&](BenchmarkResult& benchmark, std::vector<CompiledBaseline> modes, double eager_python_us) {
    benchmark.compiled = std::move(modes);
    benchmark.eager_python_median_us = eager_python_us;
    const CompiledBaseline* fastest = fastest_timed(benchmark.compiled);
    benchmark.compile_speedup = fastest ? fastest->median_us / benchmark.median_us : 0;
  };
  compiled(report.dynamic.benchmarks[0],
           {{"default", 180.0, 1.0, 21.5, ""}, {"max-autotune-no-cudagraphs", 171.0, 0.9, 64.0, ""}}, 401.0);
  compiled(report.dynamic.benchmarks[1],
           {{"default", 300.0, 2.0, 3.5, ""}, {"max-autotune-no-cudagraphs", 0, 0, 0, out_of_time}}, 544.0);
  report.dynamic.benchmarks[2].compiled_problem = "not timed: no Python with Torch given (--python)";
  compiled(report.dynamic.benchmarks[3], {{"default", 150.0, 1.5, 3.0, ""}}, 545.0 * 1.5);
  finalise_report(report);
  return report;
}

}  // namespace kcheck::testing
