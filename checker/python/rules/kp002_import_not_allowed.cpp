#include <algorithm>

#include "checker/core/policy.h"
#include "checker/facts/kernel_identity.h"
#include "checker/python/rules/python_rule_table.h"
#include "checker/python/rules/python_rule_support.h"

namespace kcheck {
namespace {

// The policy's dependencies a variant of `backend` may declare.
std::vector<const AllowedPythonDependency*> allowed_dependencies(const Policy& policy,
                                                                 const std::optional<std::string>& backend) {
  std::vector<const AllowedPythonDependency*> allowed;
  for (const AllowedPythonDependency& dependency : policy.python.general_dependencies) allowed.push_back(&dependency);
  if (backend) {
    if (auto found = policy.python.backend_dependencies.find(*backend);
        found != policy.python.backend_dependencies.end()) {
      for (const AllowedPythonDependency& dependency : found->second) allowed.push_back(&dependency);
    }
  }
  return allowed;
}

const AllowedPythonDependency* dependency_providing(const std::vector<const AllowedPythonDependency*>& allowed,
                                                    const std::string& module) {
  for (const AllowedPythonDependency* dependency : allowed) {
    const auto& names = dependency->import_names;
    if (std::find(names.begin(), names.end(), module) != names.end()) return dependency;
  }
  return nullptr;
}

std::string allowed_import_list(const std::vector<const AllowedPythonDependency*>& allowed) {
  std::string list;
  for (const AllowedPythonDependency* dependency : allowed) {
    for (const std::string& name : dependency->import_names) list += (list.empty() ? "" : ", ") + name;
  }
  return list.empty() ? "none" : list;
}

class ImportNotAllowed final : public PerPythonFileRule {
 public:
  const RuleInfo& info() const override { return info_; }

 private:
  void check_file(const VariantFacts& variant, const PythonFileFacts& file, const RuleContext& context,
                  FindingSink& sink) const override {
    const std::optional<std::string> backend = variant_backend(variant);
    const auto allowed = allowed_dependencies(context.policy, backend);
    const std::optional<std::string> own_module = kernel_module_name(variant);
    const std::optional<std::string> own_id = variant_kernel_id(variant);
    for (const PythonImport& import : file.imports) {
      if (import.level != 0) continue;
      const std::string top = top_level_module(import.module);
      if (top == "torch" || top == own_module || top == own_id) continue;  // KP001 judges own-package imports
      if (context.policy.python.stdlib_modules.contains(top)) continue;
      if (bundled_with_torch(context.policy, backend, import.module)) continue;
      const AllowedPythonDependency* dependency = dependency_providing(allowed, top);
      if (dependency && declared(variant, dependency->name)) continue;
      const Severity severity = import.in_type_checking || import.in_import_error_guard ? Severity::note
                                : import.in_function                                    ? Severity::warning
                                                                                        : Severity::error;
      sink.report(severity, python_place(variant, file, import.line),
                  message(import, top, dependency, backend, allowed));
    }
  }

  // Whether Torch installs the imported module itself: on every backend ("all":
  // typing_extensions, ...) or on the variant's (triton with a CUDA Torch). An
  // entry is a package: "cuda.bindings" covers cuda.bindings.driver, not cuda.core.
  static bool bundled_with_torch(const Policy& policy, const std::optional<std::string>& backend,
                                 const std::string& module) {
    auto bundled_on = [&](const std::string& key) {
      auto packages = policy.python.torch_bundled_modules.find(key);
      return packages != policy.python.torch_bundled_modules.end() &&
             std::any_of(packages->second.begin(), packages->second.end(), [&](const std::string& package) {
               return module == package || module.starts_with(package + ".");
             });
    };
    return bundled_on("all") || (backend && bundled_on(*backend));
  }

  // Whether metadata.json declares the dependency (unknown metadata: assume so).
  static bool declared(const VariantFacts& variant, const std::string& name) {
    if (!variant.metadata.python_depends) return true;
    const auto& depends = *variant.metadata.python_depends;
    return std::find(depends.begin(), depends.end(), name) != depends.end();
  }

  static std::string message(const PythonImport& import, const std::string& top,
                             const AllowedPythonDependency* dependency, const std::optional<std::string>& backend,
                             const std::vector<const AllowedPythonDependency*>& allowed) {
    std::string text = "`" + import_statement_text(import) + "`: ";
    if (dependency) {
      text += "`" + top + "` comes from `" + dependency->name +
              "`, which metadata.json python-depends does not declare; add it";
    } else {
      text += "`" + top +
              "` is not in the standard library, not torch, not this kernel and not an allowed python-depends for "
              "backend `" +
              backend.value_or("unknown") + "` (allowed imports: " + allowed_import_list(allowed) + ")";
    }
    if (import.in_type_checking)
      text += " [only under `if TYPE_CHECKING:`, never imported at run time]";
    else if (import.in_import_error_guard)
      text += " [guarded by `except ImportError`, so optional at run time]";
    else if (import.in_function)
      text += " [inside a function: imported only when it is called, not when the kernel loads]";
    return text;
  }

  RuleInfo info_{"KP002",
                 "Import of a module that is not stdlib, torch, the kernel or an allowed dependency",
                 Severity::error,
                 R"doc(Flags absolute imports whose top-level module is not in the standard library
(the policy's list, from `sys.stdlib_module_names`), not `torch` or a module
Torch installs itself (`typing_extensions` everywhere; `triton` with a CUDA,
ROCm or XPU Torch, `cuda.bindings` with CUDA), not the
kernel itself, and not provided by a python-depends entry that the policy
allows for the variant's backend and that metadata.json declares.

Why: the Hub loader only installs the declared, curated dependencies of the
running backend; any other import fails on users' machines (or picks up
whatever happens to be installed).

Severity: error. Imports under `if TYPE_CHECKING:` never run and are a note.
An import inside a function body runs only when that function is called
(a vendored library's path for another framework's arrays, say): loading
the kernel never fails on it, so it is a warning, which `--strict` gates.
Imports inside `try:` whose handlers catch ImportError (or
ModuleNotFoundError, Exception, a bare except) are optional by construction
and are also a note, so that the optional use stays visible.

Fix: use the standard library or torch, or declare an allowed dependency in
build.toml (it lands in metadata.json python-depends).
)doc",
                 R"ex(import numpy as np          # numpy is not an allowed python-depends)ex",
                 R"ex(import torch                # use torch instead, or declare an allowed dependency)ex",
                 0,
                 RuleNeeds::source,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_kp002_import_not_allowed() { return std::make_unique<ImportNotAllowed>(); }

}  // namespace kcheck
