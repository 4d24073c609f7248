#include <map>
#include <vector>

#include "checker/harness/rules/harness_rule_support.h"
#include "checker/namespace/rules/namespace_rule_table.h"

namespace kcheck {
namespace {

std::string list_names(const std::vector<std::string>& names) {
  constexpr std::size_t kShown = 8;
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < kShown; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > kShown) text += " and " + std::to_string(names.size() - kShown) + " more";
  return text;
}

class ForeignRegistration final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      if (!was_run(variant) || !variant.harness->loaded) continue;
      const HarnessFacts& facts = *variant.harness;
      const std::string own = facts.own_namespace.empty() ? "(unknown)" : facts.own_namespace;
      std::map<std::string, std::vector<std::string>> foreign;
      for (const DispatcherOp& op : facts.new_ops)
        if (op.op_namespace != facts.own_namespace) foreign[op.op_namespace].push_back(op.name);
      for (const auto& [name_space, ops] : foreign)
        sink.report(harness_place(variant), "loading registered operators in namespace '" + name_space +
                                                "', not the variant's own '" + own + "': " + list_names(ops));
      std::map<std::string, std::vector<std::string>> overridden;
      for (const DispatcherOp& op : facts.changed_ops)
        if (op.op_namespace != facts.own_namespace) overridden[op.op_namespace].push_back(op.name);
      for (const auto& [name_space, ops] : overridden)
        sink.report(harness_place(variant),
                    "loading registered kernels for existing operators of namespace '" + name_space + "'" +
                        (name_space == "aten" ? " (overriding Torch's own kernels)" : "") + ": " + list_names(ops));
      if (!facts.new_fallbacks.empty())
        sink.report(harness_place(variant), "loading registered a fallback kernel for dispatch key(s) " +
                                                list_names(facts.new_fallbacks) +
                                                " (it would take over every operator of those keys)");
    }
  }

 private:
  RuleInfo info_{"KO006",
                 "The module registered outside its own namespace",
                 Severity::error,
                 R"(`kcheck run` compares the Torch dispatcher before and after loading the
native module. A kernel may only register operators (and their kernels) in
its own namespace, the variant's unique id. This rule flags operators added
to another namespace, kernels added to or replacing those of existing
operators (an `aten` override changes Torch itself for every user of the
process), and backend fallbacks, which capture every operator of a dispatch
key. Two kernels doing this collide, and the process behaves differently
depending on what was imported.

Fix: register with TORCH_LIBRARY(<id>, m) / TORCH_LIBRARY_IMPL(<id>, CPU, m)
only, using the id kernel-builder generates (the `TORCH_EXTENSION_NAME`).
)",
                 R"ex(TORCH_LIBRARY_IMPL(aten, CPU, m) { m.impl("relu", my_relu); })ex",
                 R"ex(TORCH_LIBRARY_IMPL(TORCH_EXTENSION_NAME, CPU, m) { m.impl("relu", my_relu); })ex",
                 6.5,
                 RuleNeeds::kernel_run,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_ko006_foreign_registration() { return std::make_unique<ForeignRegistration>(); }

}  // namespace kcheck
