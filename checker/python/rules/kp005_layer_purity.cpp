#include <algorithm>
#include <array>

#include "checker/python/python_name_resolution.h"
#include "checker/python/rules/python_rule_table.h"
#include "checker/python/rules/python_rule_support.h"

namespace kcheck {
namespace {

constexpr std::array<std::string_view, 2> kAllowedClassVariables = {"has_backward", "can_torch_compile"};

bool is_layers_file(const std::string& relative_path) {
  return relative_path == "layers.py" || relative_path.starts_with("layers/");
}

class LayerPurity final : public PerPythonFileRule {
 public:
  const RuleInfo& info() const override { return info_; }

 private:
  void check_file(const VariantFacts& variant, const PythonFileFacts& file, const RuleContext&,
                  FindingSink& sink) const override {
    if (!is_layers_file(file.relative_path) || !exports_layers(variant)) return;
    const auto imported = imported_name_targets(file);
    std::vector<std::string> layer_names;
    for (const PythonClass& cls : file.classes) {
      if (!cls.at_top_level || !is_layer(cls, imported, layer_names)) continue;
      layer_names.push_back(cls.name);
      for (const PythonClassMember& method : cls.methods) {
        if (method.name == "forward") continue;
        sink.report(python_place(variant, file, method.line),
                    "layer `" + cls.name + "` defines method `" + method.name +
                        "`; a layer may define only `forward` (no __init__, no helpers)");
      }
      for (const PythonClassMember& variable : cls.class_variables) {
        if (std::find(kAllowedClassVariables.begin(), kAllowedClassVariables.end(), variable.name) !=
            kAllowedClassVariables.end())
          continue;
        sink.report(python_place(variant, file, variable.line),
                    "layer `" + cls.name + "` has class variable `" + variable.name +
                        "`; a layer may set only `has_backward` and `can_torch_compile` (annotations without a value "
                        "are fine)");
      }
    }
  }

  // Layers are what the top-level package exports as `layers`
  // (build-variants.md §3.4: `from . import layers`, or "layers" in
  // __all__); a `layers` module it does not export (a vendored library's
  // own, e.g. einops' framework layers) is no Hub layer. Without a parsed
  // top-level __init__.py, every `layers` module is judged.
  static bool exports_layers(const VariantFacts& variant) {
    for (const PythonFileFacts& file : variant.python_files) {
      if (file.relative_path != "__init__.py" || !file.parsed) continue;
      if (file.all_names &&
          std::find(file.all_names->begin(), file.all_names->end(), "layers") != file.all_names->end())
        return true;
      return std::any_of(file.imports.begin(), file.imports.end(), [](const PythonImport& import) {
        return import.level == 1 &&
               (import.module == "layers" || import.module.starts_with("layers.") ||
                std::find(import.names.begin(), import.names.end(), "layers") != import.names.end());
      });
    }
    return true;
  }

  // A torch.nn.Module subclass: a base `Module` or `<name>.Module` that
  // resolves to Torch's (`nn` bound by `from torch import nn`; a name no
  // import binds is taken as Torch's), or a layer defined earlier in the
  // same file. `flax.linen.Module` and the like are not layers.
  static bool is_layer(const PythonClass& cls, const std::map<std::string, std::string, std::less<>>& imported,
                       const std::vector<std::string>& known_layers) {
    return std::any_of(cls.bases.begin(), cls.bases.end(), [&](const std::string& base) {
      if (std::find(known_layers.begin(), known_layers.end(), base) != known_layers.end()) return true;
      if (base != "Module" && !base.ends_with(".Module")) return false;
      const std::string qualified = qualified_callee(imported, base);
      return qualified == base ? true : qualified.starts_with("torch.");
    });
  }

  RuleInfo info_{"KP005",
                 "Layer class in `layers` is not pure",
                 Severity::error,
                 R"doc(Flags, in `layers.py` or the `layers/` package that the top-level package
exports (`from . import layers`, or "layers" in `__all__`), each top-level
torch.nn.Module subclass (a layer) that defines `__init__` or any method other than
`forward`, or a class variable other than `has_backward` and
`can_torch_compile`. Annotations without a value (`weight: torch.Tensor`)
are allowed: they declare members the replaced module provides.

Why: the kernels library swaps a model's module class for the layer class
(`kernelize`), keeping the original instance and its state; a layer's own
`__init__`, helpers or state would never run or would shadow the module's.

Fix: move helpers to module-level functions, derive everything inside
`forward`, and keep only `has_backward` / `can_torch_compile`.
)doc",
                 R"ex(class SiluAndMul(nn.Module):
    def __init__(self):          # not allowed
        super().__init__()
    def forward(self, x): ...)ex",
                 R"ex(class SiluAndMul(nn.Module):
    can_torch_compile: bool = True
    def forward(self, x: torch.Tensor) -> torch.Tensor: ...)ex",
                 0,
                 RuleNeeds::source};
};

}  // namespace

std::unique_ptr<Rule> make_kp005_layer_purity() { return std::make_unique<LayerPurity>(); }

}  // namespace kcheck
