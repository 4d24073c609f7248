#include "checker/namespace/rules/namespace_rule_table.h"
#include "checker/namespace/rules/op_registration_calls.h"
#include "checker/python/python_name_resolution.h"
#include "checker/python/rules/python_rule_support.h"

namespace kcheck {
namespace {

class LiteralOpNamespace final : public PerPythonFileRule {
 public:
  const RuleInfo& info() const override { return info_; }

 private:
  void check_file(const VariantFacts& variant, const PythonFileFacts& file, const RuleContext&,
                  FindingSink& sink) const override {
    const auto targets = imported_name_targets(file);
    for (const PythonCall& call : file.calls) {
      if (!call.first_string_argument) continue;
      const std::string qualified = qualified_callee(targets, call.callee);
      if (!is_op_registration(qualified)) continue;
      sink.report(python_place(variant, file, call.line),
                  std::string(call.is_decorator ? "decorator " : "") + "`" + call.callee + "(\"" +
                      *call.first_string_argument + "\", ...)` registers with a literal op namespace; write `" +
                      call.callee + "(add_op_namespace_prefix(\"" + op_name(*call.first_string_argument) +
                      "\"), ...)` with add_op_namespace_prefix from ._ops");
    }
  }

  static std::string op_name(const std::string& literal) {
    const std::size_t separator = literal.find("::");
    return separator == std::string::npos ? literal : literal.substr(separator + 2);
  }

  RuleInfo info_{"KO003",
                 "Python registers ops with a literal namespace",
                 Severity::error,
                 R"doc(Flags calls and decorators of `torch.library.custom_op`, `triton_op`,
`register_fake`, `register_kernel`, `register_autograd`, `register_vmap`,
`register_torch_dispatch` (bare or through any module) and of
`torch.library.define` / `impl` / `Library(...)` whose first argument is a
string literal ("mylib::op", "mylib") instead of
`add_op_namespace_prefix("op")` from the package's `_ops.py`.

Why: the op namespace is the variant's unique id, which changes with every
revision; a literal either points at another revision's ops or at a fixed
namespace that clashes between kernels. The builder's registration check
rejects the same pattern in the source tree.

Fix:
    from ._ops import add_op_namespace_prefix
    @torch.library.register_fake(add_op_namespace_prefix("relu"))
)doc",
                 R"ex(@torch.library.register_fake("_relu_cuda_0a1b2c3::relu"))ex",
                 R"ex(from ._ops import add_op_namespace_prefix
@torch.library.register_fake(add_op_namespace_prefix("relu")))ex",
                 0,
                 RuleNeeds::source,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_ko003_literal_op_namespace() { return std::make_unique<LiteralOpNamespace>(); }

}  // namespace kcheck
