#include "checker/facts/kernel_identity.h"
#include "checker/namespace/rules/namespace_rule_table.h"

namespace kcheck {
namespace {

// One name the registered namespace must equal, and where it comes from.
struct ExpectedName {
  std::string source;  // "metadata.json id", "_ops.py (line 3)", ...
  std::string name;
};

std::vector<ExpectedName> expected_names(const VariantFacts& variant, const NativeModuleFacts& native) {
  std::vector<ExpectedName> expected;
  if (variant.metadata.id) expected.push_back({"metadata.json id", *variant.metadata.id});
  if (auto ops = ops_py_namespace(variant)) {
    expected.push_back({"_ops.py torch.ops namespace (line " + std::to_string(ops->line) + ")", ops->name});
  }
  expected.push_back({"native module file name " + native.relative_path, native_module_stem(native.relative_path)});
  // A module has one PyInit_; a few are named, so that a table crafted with
  // 100,000s of them cannot make each finding list them all (KE008 judges them).
  constexpr std::size_t kMaxInitSymbolsNamed = 8;
  std::size_t init_symbols = 0;
  for (const ElfExportedSymbol& symbol : native.elf->exports) {
    if (!symbol.name.starts_with("PyInit_") || ++init_symbols > kMaxInitSymbolsNamed) continue;
    expected.push_back({"init symbol " + symbol.name, symbol.name.substr(7)});
  }
  return expected;
}

class RegisteredNamespaceMismatch final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for (const VariantFacts& variant : context.tree.variants) {
      for (const NativeModuleFacts& native : variant.native_modules) {
        if (native.elf && native.elf->error.empty()) check_module(variant, native, sink);
      }
    }
    // A source repository, before any build: the registration as written.
    for (const SourceRegistration& registration : context.tree.source_registrations) {
      if (!literal_namespace(registration)) continue;
      sink.report({.file = registration.file, .location = {.line = registration.line}},
                  "`" + registration.macro + "(" + registration.namespace_ +
                      ", ...)` registers the kernel's Torch ops under the fixed namespace `" + registration.namespace_ +
                      "`; each build's namespace is its id (`TORCH_EXTENSION_NAME`, " +
                      "e.g. _relu_cuda_0a1b2c3), which the package reaches through `_ops.py`");
    }
  }

 private:
  static void check_module(const VariantFacts& variant, const NativeModuleFacts& native, FindingSink& sink) {
    const std::vector<ExpectedName> expected = expected_names(variant, native);
    for (const std::string& registered : native.elf->torch_library_namespaces) {
      std::string differences;
      for (const ExpectedName& name : expected) {
        if (name.name != registered)
          differences += (differences.empty() ? "" : "; ") + name.source + " is `" + name.name + "`";
      }
      if (differences.empty()) continue;
      sink.report({.variant = variant.directory_name,
                   .file = variant.report_path(native.relative_path),
                   .location = {.symbol = "TORCH_LIBRARY(" + registered + ")"}},
                  "the native module registers its Torch ops under namespace `" + registered + "`, but " + differences +
                      ": torch.ops." + registered + " is not the namespace the package uses");
    }
    if (native.elf->more_torch_library_namespaces) {
      sink.report({.variant = variant.directory_name, .file = variant.report_path(native.relative_path)},
                  "the native module registers Torch ops under more than " +
                      std::to_string(kMaxTorchLibraryNamespaces) + " namespaces; only the first " +
                      std::to_string(kMaxTorchLibraryNamespaces) + " are compared (a kernel registers one)");
    }
  }

  RuleInfo info_{"KO001",
                 "Registered op namespace differs from id, _ops.py, file name or PyInit_",
                 Severity::error,
                 R"doc(Reads the namespace the native module registers its Torch operator library
under (the `TORCH_LIBRARY` / `STABLE_TORCH_LIBRARY` (and `_FRAGMENT`)
static-initialiser symbols in the binary) and compares it with metadata.json
`id`, the `torch.ops.<ns>` of `_ops.py`, the module's file name
(`<id>.abi3.so`) and its `PyInit_<id>` export. Each disagreement is named.
A module registering under more than 64 distinct namespaces is itself a
finding (only the first 64 are read and compared): a kernel registers one.
In a source repository (`kcheck check` before any build) the C++ sources
build.toml lists are read instead: a registration whose namespace is a
literal name (`TORCH_LIBRARY(relu, m)`), not `TORCH_EXTENSION_NAME` or a
macro standing for it, is flagged with its file and line.

Why: the package reaches its ops through `torch.ops.<id>` (the `ops` object
of `_ops.py`); ops registered under another namespace are unreachable, and a
fixed namespace such as `my_ops` clashes with any other kernel or revision
that uses it (the second registration aborts the import).

Fix: register with the builder's macro, which derives the namespace from
`TORCH_EXTENSION_NAME` (the id): `TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops)`.
)doc",
                 R"ex(TORCH_LIBRARY(relu_ops, m) { m.def("relu(Tensor! out, Tensor x) -> ()"); }
// metadata id and _ops.py say _relu_cpu_0a1b2c3)ex",
                 R"ex(TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, m) { m.def("relu(Tensor! out, Tensor x) -> ()"); }
// TORCH_EXTENSION_NAME is the id: _relu_cpu_0a1b2c3)ex",
                 0,
                 RuleNeeds::source,
                 OptionalFact::op_namespaces};
};

}  // namespace

std::unique_ptr<Rule> make_ko001_registered_namespace_mismatch() {
  return std::make_unique<RegisteredNamespaceMismatch>();
}

}  // namespace kcheck
