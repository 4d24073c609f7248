#include <algorithm>

#include "checker/facts/kernel_identity.h"
#include "checker/namespace/rules/namespace_rule_table.h"
#include "checker/python/rules/python_rule_support.h"

namespace kcheck {
namespace {

class LiteralTorchOpsNamespace final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) check_variant(variant, sink);
  }

 private:
  static void check_variant(const VariantFacts& variant, FindingSink& sink) {
    const std::vector<std::string> own = own_op_namespaces(variant);
    const std::optional<std::string> module = kernel_module_name(variant);
    for (const PythonFileFacts& file : variant.python_files) {
      if (!file.parsed || is_generated_ops(file.relative_path, module)) continue;
      for (const PythonAttributeChain& chain : file.torch_ops_chains) {
        const std::string ns = torch_ops_chain_namespace(chain.chain);
        if (!is_own(ns, own, module)) continue;
        sink.report(python_place(variant, file, chain.line),
                    "`" + chain.chain + "` reaches the kernel's own op namespace by its literal name `" + ns +
                        "`; use `from ._ops import ops` and `ops" +
                        chain.chain.substr(std::string("torch.ops.").size() + ns.size()) + "`");
      }
    }
  }

  // The generated `_ops.py`: at the variant root, or inside the legacy
  // package `<module>/` (build-variants.md §3.5), where it is the one
  // place that names the namespace.
  static bool is_generated_ops(const std::string& path, const std::optional<std::string>& module) {
    return path == "_ops.py" || (module && path == *module + "/_ops.py");
  }

  // The variant's own namespace, or one shaped like another revision's of
  // the same kernel (`_<module>_...`).
  static bool is_own(const std::string& ns, const std::vector<std::string>& own,
                     const std::optional<std::string>& module) {
    if (std::find(own.begin(), own.end(), ns) != own.end()) return true;
    return module && split_kernel_id(ns, *module).has_value();
  }

  RuleInfo info_{"KO004",
                 "Python reaches torch.ops.<own namespace> outside _ops.py",
                 Severity::error,
                 R"doc(Flags `torch.ops.<ns>` attribute chains in any Python file of the variant other
than the generated `_ops.py` (at the variant root, or in the legacy layout
`<module>/_ops.py` inside the package), where `<ns>` is the kernel's own op namespace (metadata id,
`_ops.py`'s namespace, the native module's name or registered namespace) or
has the shape `_<module>_<backend>_<unique>` of another revision of it.

Why: the namespace is the variant's unique id and differs between revisions
and backends; code that spells it out breaks on the next build or loads
another revision's ops. `_ops.py` is generated with the right id.

Fix:
    from ._ops import ops
    ops.relu(out, x)
)doc",
                 R"ex(torch.ops._relu_cpu_0a1b2c3.relu(out, x))ex",
                 R"ex(from ._ops import ops
ops.relu(out, x))ex",
                 0,
                 RuleNeeds::source,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_ko004_literal_torch_ops_namespace() { return std::make_unique<LiteralTorchOpsNamespace>(); }

}  // namespace kcheck
