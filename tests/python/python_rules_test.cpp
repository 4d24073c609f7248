// KP001–KP008 on hand-built facts: each rule fires on its violation, names
// the offending thing, and stays silent on the near-miss.
#include <gtest/gtest.h>

#include <algorithm>

#include "checker/audit/security_profile.h"
#include "checker/python/rules/python_rule_table.h"
#include "checker/support/embedded_files.h"
#include "tests/python/rule_test_support.h"

namespace kcheck {
namespace {

using testing::hub_policy;
using testing::make_tree;
using testing::make_variant;
using testing::run_rule;

Findings check(std::unique_ptr<Rule> rule, const std::map<std::string, std::string>& sources,
               const AuditOptions& options = AuditOptions{}) {
  return run_rule(*rule, make_tree(make_variant(sources)), hub_policy(), options);
}

TEST(KP001, AbsoluteImportOfOwnPackageFires) {
  const Findings findings =
      check(make_kp001_own_package_absolute_import(), {{"layers.py", "import torch\nfrom relu.ops import f\n"}});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].code, "KP001");
  EXPECT_EQ(findings[0].file, "build/torch212-cxx11-cpu-x86_64-linux/layers.py");
  EXPECT_EQ(findings[0].location.line, 2);
  EXPECT_NE(findings[0].message.find("from relu.ops import f"), std::string::npos);
  EXPECT_NE(findings[0].message.find("from .ops import f"), std::string::npos);
}

TEST(KP001, RelativeImportPasses) {
  EXPECT_TRUE(check(make_kp001_own_package_absolute_import(),
                    {{"layers.py", "from .x import y\nfrom . import _ops\nimport relux\n"}})
                  .empty());
}

TEST(KP002, ThirdPartyImportFiresAndTypeCheckingIsANote) {
  const Findings findings =
      check(make_kp002_import_not_allowed(), {{"helpers.py",
                                               "import numpy as np\nfrom typing import TYPE_CHECKING\n"
                                               "if TYPE_CHECKING:\n    import pandas\n"}});
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_NE(findings[0].message.find("`numpy`"), std::string::npos);
  EXPECT_NE(findings[0].message.find("einops"), std::string::npos) << "names what the policy allows";
  EXPECT_EQ(findings[1].severity, Severity::note);
  EXPECT_EQ(findings[1].location.line, 4);
}

// A vendored library's path for another framework (einops' _backends.py):
// loading the kernel never runs it, so a warning, not an error.
TEST(KP002, ImportInsideAFunctionIsAWarning) {
  const Findings findings =
      check(make_kp002_import_not_allowed(),
            {{"helpers.py",
              "import torch\ndef to_numpy(x):\n    import numpy\n    return numpy.asarray(x)\n"
              "class Backend:\n    def load(self):\n        if True:\n            import jax.numpy\n"}});
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_EQ(findings[0].location.line, 3);
  EXPECT_NE(findings[0].message.find("inside a function: imported only when it is called"), std::string::npos)
      << findings[0].message;
  EXPECT_EQ(findings[1].severity, Severity::warning);
  EXPECT_EQ(findings[1].location.line, 8);
}

TEST(KP002, StdlibTorchAndDeclaredDependencyPass) {
  VariantFacts variant = make_variant(
      {{"helpers.py",
        "import typing\nimport os.path\nimport torch.nn\nimport einops\nfrom __future__ import annotations\n"}});
  variant.metadata.python_depends = std::vector<std::string>{"einops"};
  EXPECT_TRUE(run_rule(*make_kp002_import_not_allowed(), make_tree(std::move(variant)), hub_policy()).empty());
}

TEST(KP002, AllowedButUndeclaredDependencyFires) {
  const Findings findings = check(make_kp002_import_not_allowed(), {{"helpers.py", "import einops\n"}});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].message.find("does not declare"), std::string::npos);
}

TEST(KP002, BackendSpecificDependencyOnlyForItsBackend) {
  const Findings findings = check(make_kp002_import_not_allowed(), {{"helpers.py", "import cutlass\n"}});
  ASSERT_EQ(findings.size(), 1u) << "cutlass is allowed for cuda, not for this cpu variant";
  EXPECT_NE(findings[0].message.find("backend `cpu`"), std::string::npos);
}

// triton (and cuda.bindings) come with a CUDA Torch (its wheel requires
// them), so a Triton kernel's torch-cuda variant may import them; a cpu
// variant may not.
TEST(KP002, ModulesTheBackendsTorchInstallsPass) {
  const std::map<std::string, std::string> sources{
      {"kernel.py", "import triton\nimport triton.language as tl\nimport cuda.bindings.driver\n"}};
  VariantFacts cuda = make_variant(sources);
  cuda.directory_name = "torch-cuda";
  cuda.name = parse_variant_name("torch-cuda");
  cuda.metadata.backend_type = "cuda";
  EXPECT_TRUE(run_rule(*make_kp002_import_not_allowed(), make_tree(std::move(cuda)), hub_policy()).empty());
  EXPECT_EQ(check(make_kp002_import_not_allowed(), sources).size(), 3u) << "not on the cpu backend";
  VariantFacts cuda_core = make_variant({{"kernel.py", "import cuda.core\n"}});
  cuda_core.directory_name = "torch-cuda";
  cuda_core.name = parse_variant_name("torch-cuda");
  cuda_core.metadata.backend_type = "cuda";
  EXPECT_EQ(run_rule(*make_kp002_import_not_allowed(), make_tree(std::move(cuda_core)), hub_policy()).size(), 1u)
      << "Torch requires cuda-bindings, not other cuda.* packages";
  EXPECT_TRUE(check(make_kp002_import_not_allowed(), {{"m.py", "from typing_extensions import override\n"}}).empty())
      << "every Torch requires typing-extensions";
  EXPECT_EQ(check(make_kp002_import_not_allowed(), {{"m.py", "from packaging.version import Version\n"}}).size(), 1u)
      << "packaging is no requirement of Torch";
}

TEST(KP003, MatchStatementFiresUnderFloor39) {
  const Findings findings =
      check(make_kp003_syntax_newer_than_floor(), {{"m.py", "x = 1\nmatch x:\n    case 1:\n        pass\n"}});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].location.line, 2);
  EXPECT_NE(findings[0].message.find("3.10"), std::string::npos);
  EXPECT_NE(findings[0].message.find("3.9"), std::string::npos);
}

TEST(KP003, RaisedFloorAcceptsIt) {
  Policy policy = hub_policy();
  policy.python.floor = *Version::parse("3.10");
  const Findings findings =
      run_rule(*make_kp003_syntax_newer_than_floor(),
               make_tree(make_variant({{"m.py", "match x:\n    case 1:\n        pass\n"}})), policy);
  EXPECT_TRUE(findings.empty());
}

TEST(KP004, MissingAllFires) {
  const Findings findings = check(make_kp004_public_api_all(), {{"__init__.py", "from ._ops import ops\n"}});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warning);
}

TEST(KP004, UndefinedNameFiresSubmoduleAndImportsPass) {
  VariantFacts variant = make_variant({{"__init__.py",
                                        "from ._ops import ops\nfrom . import layers\ndef relu(x): pass\n"
                                        "__all__ = ['relu', 'ops', 'layers', 'helpers', 'gelu']\n"},
                                       {"helpers.py", ""},
                                       {"layers.py", ""}});
  const Findings findings = run_rule(*make_kp004_public_api_all(), make_tree(std::move(variant)), hub_policy());
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_NE(findings[0].message.find("`gelu`"), std::string::npos);
  EXPECT_EQ(findings[0].location.line, 4);
}

TEST(KP004, OnlyThePackageInitIsJudged) {
  EXPECT_TRUE(
      check(make_kp004_public_api_all(), {{"layers.py", "x = 1\n"}, {"__init__.py", "__all__ = []\n"}}).empty());
}

TEST(KP005, InitHelperAndClassVariableFire) {
  const Findings findings = check(make_kp005_layer_purity(), {{"layers.py",
                                                               "import torch\nfrom torch import nn\n"
                                                               "class SiluAndMul(nn.Module):\n"
                                                               "    eps = 1e-6\n"
                                                               "    def __init__(self):\n        super().__init__()\n"
                                                               "    def forward(self, x):\n        return x\n"
                                                               "    def _helper(self):\n        pass\n"}});
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0].location.line, 5);
  EXPECT_NE(findings[0].message.find("`__init__`"), std::string::npos);
  EXPECT_NE(findings[1].message.find("`_helper`"), std::string::npos);
  EXPECT_NE(findings[2].message.find("`eps`"), std::string::npos);
}

TEST(KP005, ForwardHasBackwardAndAnnotationsPass) {
  EXPECT_TRUE(check(make_kp005_layer_purity(),
                    {{"layers.py",
                      "import torch\n"
                      "class Relu(torch.nn.Module):\n"
                      "    has_backward = False\n    can_torch_compile = True\n"
                      "    weight: torch.Tensor\n"
                      "    def forward(self, x):\n        return x\n"
                      "class NotALayer:\n    def helper(self): pass\n"},
                     {"helpers.py", "import torch\nclass M(torch.nn.Module):\n    def __init__(self): pass\n"}})
                  .empty());
}

// Layers are what the top-level package exports as `layers`; a vendored
// library's own `layers` package it does not export is no Hub layer.
TEST(KP005, OnlyTheExportedLayersModuleIsJudged) {
  const std::string impure = "from torch import nn\nclass Mix(nn.Module):\n    def _helper(self):\n        pass\n";
  EXPECT_TRUE(check(make_kp005_layer_purity(),
                    {{"__init__.py", "from .ops import mix\n__all__ = ['mix']\n"}, {"layers/torch.py", impure}})
                  .empty());
  EXPECT_EQ(
      check(make_kp005_layer_purity(), {{"__init__.py", "from . import layers\n"}, {"layers/torch.py", impure}}).size(),
      1u);
  EXPECT_EQ(check(make_kp005_layer_purity(), {{"__init__.py", "__all__ = ['layers']\n"}, {"layers.py", impure}}).size(),
            1u);
}

// flax.linen.Module (as `nn`) is not torch.nn.Module: no layer.
TEST(KP005, ModulesOfOtherFrameworksAreNotLayers) {
  EXPECT_TRUE(
      check(make_kp005_layer_purity(),
            {{"layers.py", "import flax.linen as nn\nclass Reduce(nn.Module):\n    def setup(self):\n        pass\n"}})
          .empty());
  EXPECT_EQ(
      check(make_kp005_layer_purity(),
            {{"layers.py", "import torch.nn as nn\nclass Reduce(nn.Module):\n    def setup(self):\n        pass\n"}})
          .size(),
      1u);
}

TEST(KP006, SubprocessIsAWarningAndAnErrorUnderSecurity) {
  const std::map<std::string, std::string> sources{{"m.py", "from subprocess import run\nrun(['nvidia-smi'])\n"}};
  const Findings findings = check(make_kp006_executes_or_fetches(), sources);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::warning);
  EXPECT_NE(findings[0].message.find("subprocess.run"), std::string::npos);
  // --security raises it through the policy (its overlay), not through the rule.
  AuditOptions options;
  Policy policy = hub_policy();
  apply_security_profile(options, policy);
  const Findings secure =
      run_rule(*make_kp006_executes_or_fetches(), make_tree(make_variant(sources)), policy, options);
  ASSERT_EQ(secure.size(), 1u);
  EXPECT_EQ(secure[0].severity, Severity::error);
}

TEST(KP006, APolicysSeverityTableRaisesIt) {
  Policy policy =
      parse_policy(std::string(*find_embedded_file("rules/policies/hub.toml")) + "\n[severity]\nKP006 = \"error\"\n",
                   "hub-with-severity.toml");
  const std::map<std::string, std::string> sources{{"m.py", "import os\nos.system('ls')\n"}};
  const Findings findings = run_rule(*make_kp006_executes_or_fetches(), make_tree(make_variant(sources)), policy);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].severity, Severity::error);
  EXPECT_THROW(
      parse_policy(std::string(*find_embedded_file("rules/policies/hub.toml")) + "\n[severity]\nKP006 = \"fatal\"\n",
                   "bad.toml"),
      PolicyError);
}

TEST(KP006, EachRiskyFamilyFires) {
  const Findings findings =
      check(make_kp006_executes_or_fetches(), {{"m.py",
                                                "import os, pickle, importlib, ctypes, urllib.request as rq\n"
                                                "eval(code)\nos.system('ls')\npickle.loads(b)\n"
                                                "importlib.import_module(name)\nctypes.CDLL('libfoo.so')\n"
                                                "rq.urlopen(url)\nopen('/etc/x', 'w')\n"}});
  EXPECT_EQ(findings.size(), 7u);
}

TEST(KP006, SafeLookalikesPass) {
  EXPECT_TRUE(check(make_kp006_executes_or_fetches(), {{"m.py",
                                                        "import os, re, ctypes, importlib\n"
                                                        "re.compile('x')\nimportlib.import_module('json')\n"
                                                        "ctypes.CDLL(os.path.join(os.path.dirname(__file__), 'x.so'))\n"
                                                        "open('/tmp/out', 'w')\nopen('/etc/x')\nobj.eval()\n"}})
                  .empty());
}

TEST(KP007, SyntaxErrorFiresWithLine) {
  const Findings findings = check(make_kp007_python_syntax_error(), {{"m.py", "import os\ndef f(x)\n    return x\n"}});
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].location.line, 2);
  EXPECT_NE(findings[0].message.find("expected ':'"), std::string::npos);
}

TEST(KP007, ValidFilePasses) {
  EXPECT_TRUE(check(make_kp007_python_syntax_error(), {{"m.py", "def f(x):\n    return x\n"}}).empty());
}

// KP008 beyond the tree fixtures (a package over a module): an extension
// module of the same name shadows it too, by Python's own suffixes only.
TEST(KP008, AnExtensionModuleBesideAModuleShadowsIt) {
  auto audit = [](const std::vector<std::string>& others) {
    VariantFacts variant = testing::make_variant({{"helpers.py", "x = 1\n"}});
    for (const std::string& other : others) variant.files.push_back(FileEntry{.relative_path = other});
    std::sort(variant.files.begin(), variant.files.end(),
              [](const FileEntry& a, const FileEntry& b) { return a.relative_path < b.relative_path; });
    return run_rule(*make_kp008_module_shadowed_by_package(), make_tree(std::move(variant)), hub_policy());
  };
  for (const char* extension : {"helpers.abi3.so", "helpers.cpython-311-x86_64-linux-gnu.so", "helpers.so"}) {
    const Findings findings = audit({extension});
    ASSERT_EQ(findings.size(), 1u) << extension;
    EXPECT_EQ(findings[0].code, "KP008");
    EXPECT_EQ(findings[0].file, "build/torch212-cxx11-cpu-x86_64-linux/helpers.py");
    EXPECT_NE(findings[0].message.find(std::string("the extension module ") + extension), std::string::npos)
        << findings[0].message;
  }
  // No suffix Python loads: a data file, a library with a dotted name, a stub.
  EXPECT_TRUE(
      audit({"helpers.data.so", "helpers..so", "helpers.pyi", "helpers_extra.abi3.so", "helpers/data.txt"}).empty());
}

}  // namespace
}  // namespace kcheck
