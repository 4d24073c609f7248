// build_kernel end to end where no compiler is needed: the Python-only
// variants (torch-<backend>) of a [torch-noarch] kernel. What is written
// (package, _ops.py, compatibility package, metadata.json and its digest),
// the op namespace, what a rebuild replaces, and the self-audit.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/audit/audit.h"
#include "checker/builder/kernel_builder.h"
#include "checker/builder/kernel_source_from_config.h"
#include "checker/kinds/build_config_facts.h"
#include "checker/core/policy.h"
#include "tests/support/kcheck_command.h"

namespace kcheck {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

std::string read(const fs::path& path) { return kcheck_test::read_text(path); }

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Every file under `dir`, relative, sorted.
Strings files_under(const fs::path& dir) {
  Strings files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) files.push_back(entry.path().lexically_relative(dir).string());
  std::sort(files.begin(), files.end());
  return files;
}

class PythonOnlyBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("kcheck-noarch-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    kernel_dir_ = root_ / "noarch-scale";
    fs::copy(fs::path(KCHECK_SOURCE_DIR) / "tests/fixtures/kernels/noarch-scale", kernel_dir_,
             fs::copy_options::recursive);
  }

  BuildRequest request(const std::string& unique_id = "0f1e2d3") {
    const BuildConfigFacts config = read_build_config(kernel_dir_);
    EXPECT_TRUE(config.usable());
    BuildRequest request;
    request.kernel = kernel_source_from_config(config);
    request.unique_id = unique_id;
    request.output_dir = root_ / "build";
    request.scratch_dir = root_ / "scratch";
    request.jobs = 1;
    return request;
  }

  KernelBuild build(const BuildRequest& request) {
    Toolchain toolchain;  // no Torch, no compiler: a Python-only build needs neither
    toolchain.torch_problem = "no Torch here";
    toolchain.cpu = "x86_64";
    progress_.clear();
    return build_kernel(request, toolchain, policy_, rules_,
                        [this](const std::string& line) { progress_.push_back(line); });
  }

  const VariantBuild& variant(const KernelBuild& built, const std::string& backend) {
    for (const VariantBuild& variant : built.variants)
      if (variant.backend == backend) return variant;
    ADD_FAILURE() << "no " << backend << " variant";
    return built.variants.front();
  }

  fs::path root_, kernel_dir_;
  Policy policy_ = load_policy("hub");
  RuleRegistry rules_ = make_rule_registry();
  Strings progress_;
};

TEST_F(PythonOnlyBuild, WritesOneTorchBackendVariantPerBackendWithoutACompiler) {
  const KernelBuild built = build(request());
  EXPECT_TRUE(built.skipped.empty());
  ASSERT_EQ(built.variants.size(), 2u);
  for (const VariantBuild& v : built.variants) {
    EXPECT_TRUE(v.built) << v.backend << ": " << v.failure;
    EXPECT_EQ(v.kind, VariantBuildKind::python_only);
    EXPECT_EQ(v.variant, "torch-" + v.backend);
    EXPECT_EQ(v.directory, fs::absolute(root_ / "build" / v.variant));
    EXPECT_EQ(v.id, "_noarch_scale_" + v.backend + "_0f1e2d3") << "_<module>_<backend>_<unique>";
    EXPECT_EQ(files_under(v.directory),
              (Strings{"__init__.py", "_ops.py", "metadata.json", "noarch_scale/__init__.py"}));
  }
  EXPECT_EQ(progress_, (Strings{"writing torch-cpu (Python only, _noarch_scale_cpu_0f1e2d3)",
                                "auditing " + variant(built, "cpu").directory.string(),
                                "writing torch-cuda (Python only, _noarch_scale_cuda_0f1e2d3)",
                                "auditing " + variant(built, "cuda").directory.string()}));
}

TEST_F(PythonOnlyBuild, TheWrittenPackageIsTheKernelsWithTheGeneratedModules) {
  const KernelBuild built = build(request());
  const fs::path dir = variant(built, "cpu").directory;
  EXPECT_EQ(read(dir / "__init__.py"), read(kernel_dir_ / "torch-ext/noarch_scale/__init__.py"));
  const std::string ops = read(dir / "_ops.py");
  EXPECT_NE(ops.find("_OPS_NAME = \"_noarch_scale_\" + _torch_backend() + \"_0f1e2d3\""), std::string::npos) << ops;
  const std::string compatibility = read(dir / "noarch_scale/__init__.py");
  EXPECT_NE(compatibility.find("scale = _package.scale\n"), std::string::npos) << compatibility;
  EXPECT_NE(compatibility.find("__all__ = [\"scale\"]\n"), std::string::npos)
      << "the top-level __all__ is re-exported\n"
      << compatibility;
}

TEST_F(PythonOnlyBuild, MetadataDescribesTheVariantAndItsArchsAsListed) {
  BuildRequest with_depends = request();
  with_depends.kernel.python_depends = {"einops"};
  with_depends.kernel.backend_python_depends["cuda"] = {"nvidia-cutlass-dsl"};
  const KernelBuild built = build(with_depends);
  const nlohmann::json cpu = nlohmann::json::parse(read(variant(built, "cpu").directory / "metadata.json"));
  EXPECT_EQ(cpu["id"], "_noarch_scale_cpu_0f1e2d3");
  EXPECT_EQ(cpu["name"], "noarch-scale");
  EXPECT_EQ(cpu["version"], 1);
  EXPECT_EQ(cpu["license"], "apache-2.0");
  EXPECT_EQ(cpu["backend"], nlohmann::json::object({{"type", "cpu"}})) << "no archs for cpu";
  EXPECT_EQ(cpu["python-depends"], nlohmann::json::array({"einops"}));
  EXPECT_EQ(cpu["kernel-depends"], nlohmann::json::array());
  EXPECT_EQ(cpu["provenance"]["kernel-builder"]["version"], std::string("kcheck ") + KCHECK_VERSION);
  EXPECT_FALSE(cpu["provenance"].contains("kernel")) << "an explicit id has no commit to record";
  // Every file the variant ships but metadata.json itself, hashed.
  EXPECT_EQ(cpu["digest"]["algorithm"], "sha256");
  Strings digested;
  for (const auto& item : cpu["digest"]["files"].items()) digested.push_back(item.key());
  EXPECT_EQ(digested, (Strings{"__init__.py", "_ops.py", "noarch_scale/__init__.py"}));

  const nlohmann::json cuda = nlohmann::json::parse(read(variant(built, "cuda").directory / "metadata.json"));
  EXPECT_EQ(cuda["backend"]["type"], "cuda");
  EXPECT_EQ(cuda["backend"]["archs"], nlohmann::json::array({"8.0", "9.0"})) << "[torch-noarch] cuda_capabilities";
  EXPECT_EQ(cuda["python-depends"], nlohmann::json::array({"einops", "nvidia-cutlass-dsl"}))
      << "general's, then the backend's";
}

// The self-audit judges what was written: a clean build passes it, and the
// digest in metadata.json matches the files (else KM rules would fire).
TEST_F(PythonOnlyBuild, TheSelfAuditOfTheWrittenVariantsIsClean) {
  const KernelBuild built = build(request());
  for (const VariantBuild& v : built.variants) {
    EXPECT_EQ(v.audit.scope, "variant") << v.backend;
    EXPECT_EQ(v.audit.gate_status(), 0) << v.backend;
    for (const Finding& finding : v.audit.findings)
      EXPECT_EQ(finding.severity, Severity::note) << v.backend << ": " << finding.code << " " << finding.message;
  }
  // A file changed after the build no longer matches the digest: the audit of
  // the same directory now fails, so the clean verdict above was earned.
  const fs::path cpu = variant(built, "cpu").directory;
  write(cpu / "__init__.py", read(cpu / "__init__.py") + "\n# changed after the build\n");
  const Report changed = run_audit(cpu, policy_, AuditOptions{}, rules_);
  EXPECT_EQ(changed.gate_status(), 1);
}

TEST_F(PythonOnlyBuild, ARebuildReplacesTheVariantDirectory) {
  build(request());
  write(root_ / "build/torch-cpu/stale.py", "left from an earlier build\n");
  const KernelBuild rebuilt = build(request("1234567"));
  const fs::path dir = variant(rebuilt, "cpu").directory;
  EXPECT_FALSE(fs::exists(dir / "stale.py"));
  EXPECT_EQ(variant(rebuilt, "cpu").id, "_noarch_scale_cpu_1234567") << "another unique part, another namespace";
  EXPECT_NE(read(dir / "_ops.py").find("\"_1234567\""), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(read(dir / "metadata.json"))["id"], "_noarch_scale_cpu_1234567");
}

// A Python-only variant ships the whole package but for bytecode.
TEST_F(PythonOnlyBuild, EveryPackageFileShipsButBytecode) {
  const fs::path package = kernel_dir_ / "torch-ext/noarch_scale";
  write(package / "data/table.json", "{}\n");
  write(package / "helpers.py", "def helper():\n    return 1\n");
  write(package / "stale.pyc", "bytecode");
  write(package / "__pycache__/helpers.cpython-311.pyc", "bytecode");
  const KernelBuild built = build(request());
  EXPECT_EQ(files_under(variant(built, "cpu").directory),
            (Strings{"__init__.py", "_ops.py", "data/table.json", "helpers.py", "metadata.json",
                     "noarch_scale/__init__.py"}));
}

// Shaped like kernels-community einops (issue #30): the package holds a module
// named like the kernel (`from .noarch_scale import scale`). A compatibility
// package `noarch_scale/` would shadow it, so none is written, and the
// variant passes its self-audit (KP008 would fire on the shadowing); a
// subpackage of that name is the kernel's own and is kept as it is.
TEST_F(PythonOnlyBuild, NoCompatibilityPackageOverTheKernelsOwnModuleOfThatName) {
  const fs::path package = kernel_dir_ / "torch-ext/noarch_scale";
  write(package / "noarch_scale.py", "def scale(x):\n    return x\n");
  write(package / "__init__.py", "from .noarch_scale import scale\n\n__all__ = [\"scale\"]\n");
  KernelBuild built = build(request());
  const VariantBuild& cpu = variant(built, "cpu");
  EXPECT_EQ(files_under(cpu.directory), (Strings{"__init__.py", "_ops.py", "metadata.json", "noarch_scale.py"}));
  EXPECT_EQ(cpu.audit.gate_status(), 0);
  for (const Finding& finding : cpu.audit.findings) {
    EXPECT_NE(finding.code, "KP008") << finding.message;
    EXPECT_NE(finding.code, "KL004") << "no compatibility package is asked for over the module: " << finding.message;
  }
  // The shadowing it avoids is what KP008 reports.
  write(cpu.directory / "noarch_scale/__init__.py", "from .. import *\n");
  AuditOptions only_kp008;
  only_kp008.selection.select = {"KP008"};
  const Report shadowed = run_audit(cpu.directory, policy_, only_kp008, rules_);
  ASSERT_EQ(shadowed.findings.size(), 1u);
  EXPECT_EQ(shadowed.findings[0].code, "KP008");
  EXPECT_EQ(shadowed.findings[0].file, "noarch_scale.py");

  fs::remove(package / "noarch_scale.py");
  write(package / "noarch_scale/__init__.py", "def scale(x):\n    return x\n");
  built = build(request());
  EXPECT_EQ(read(variant(built, "cpu").directory / "noarch_scale/__init__.py"), "def scale(x):\n    return x\n")
      << "the kernel's own subpackage, not overwritten";
}

TEST_F(PythonOnlyBuild, ABackendListIsBuiltAloneAndInThatOrder) {
  BuildRequest cuda_only = request();
  cuda_only.backends = {"cuda"};
  const KernelBuild built = build(cuda_only);
  ASSERT_EQ(built.variants.size(), 1u);
  EXPECT_EQ(built.variants[0].variant, "torch-cuda");
  EXPECT_FALSE(fs::exists(root_ / "build/torch-cpu"));
}

TEST_F(PythonOnlyBuild, AMissingPythonPackageIsABuildErrorNamingThePath) {
  fs::remove_all(kernel_dir_ / "torch-ext");
  try {
    build(request());
    FAIL() << "expected a BuildError";
  } catch (const BuildError& error) {
    const std::string why = error.what();
    EXPECT_NE(why.find("no Python package at " + (kernel_dir_ / "torch-ext/noarch_scale").string()), std::string::npos)
        << why;
  }
}

// Ops registered without add_op_namespace_prefix would collide between
// variants: refused before anything is written, naming each.
TEST_F(PythonOnlyBuild, UnprefixedOpRegistrationsAreRefusedBeforeWriting) {
  write(kernel_dir_ / "torch-ext/noarch_scale/extra.py",
        "import torch\n\n\n@torch.library.custom_op(\"noarch_scale::shift\", mutates_args=())\n"
        "def shift(x: torch.Tensor) -> torch.Tensor:\n    return x + 1\n");
  try {
    build(request());
    FAIL() << "expected a BuildError";
  } catch (const BuildError& error) {
    const std::string why = error.what();
    EXPECT_NE(why.find("add_op_namespace_prefix"), std::string::npos) << why;
    EXPECT_NE(why.find("extra.py:4"), std::string::npos) << why;
  }
  EXPECT_FALSE(fs::exists(root_ / "build"));
}

}  // namespace
}  // namespace kcheck
