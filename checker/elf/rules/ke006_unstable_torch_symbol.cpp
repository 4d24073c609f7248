#include "checker/core/policy.h"
#include "checker/support/demangle.h"
#include "checker/elf/native_module_view.h"
#include "checker/elf/rules/elf_rule_table.h"

namespace kcheck {
namespace {

bool starts_namespace(std::string_view text, std::size_t at, std::string_view name) {
  const bool boundary = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
  return boundary && text.substr(at).starts_with(name);
}

// Does the C++ name refer to Torch's unstable C++ API (c10::, at::, torch::
// outside torch::stable:: and torch::headeronly::)?
bool names_unstable_torch_api(std::string_view demangled) {
  for (std::size_t at = 0; at < demangled.size(); ++at) {
    if (starts_namespace(demangled, at, "c10::") || starts_namespace(demangled, at, "at::")) return true;
    if (starts_namespace(demangled, at, "torch::") && !demangled.substr(at).starts_with("torch::stable::") &&
        !demangled.substr(at).starts_with("torch::headeronly::")) {
      return true;
    }
  }
  return false;
}

// Cheap test on the mangled name before demangling: the <length><name> of a
// Torch namespace appears in it.
bool may_name_torch_api(std::string_view mangled) {
  return mangled.starts_with("_Z") &&
         (mangled.find("3c10") != std::string_view::npos || mangled.find("2at") != std::string_view::npos ||
          mangled.find("5torch") != std::string_view::npos);
}

// "2.11.0" -> "2.11": Torch releases as the variant names spell them.
std::string major_minor(const Version& version) {
  return std::to_string(version.major()) + "." + std::to_string(version.minor());
}

class UnstableTorchSymbol final : public Rule {
 public:
  const RuleInfo& info() const override { return info_; }

  void check(const RuleContext& context, FindingSink& sink) const override {
    for_each_native_module(context.tree, [&](const NativeModuleView& view) {
      if (!view.variant_is(VariantKind::torch_stable_abi)) return;
      const Version& torch = view.variant_name()->framework_version;
      for (const std::string_view name : imported_symbol_names(view)) {
        check_import(name, torch, context.policy, view, sink);
      }
    });
  }

 private:
  static void check_import(std::string_view name, const Version& torch, const Policy& policy,
                           const NativeModuleView& view, FindingSink& sink) {
    const std::string symbol(name);
    if (may_name_torch_api(name)) {
      const std::optional<std::string> demangled = try_demangle(name);
      if (!demangled) {
        // Not judged is not passed: a name past the demangler's bounds that spells a Torch namespace.
        sink.report(view.place(symbol), "imports " + symbol +
                                            ", which names a Torch namespace and cannot be demangled within "
                                            "kcheck's bounds to prove it is not Torch's unstable C++ API; a " +
                                            view.variant.directory_name +
                                            " variant must use only torch::stable:: and the C shims");
        return;
      }
      if (names_unstable_torch_api(*demangled)) {
        sink.report(view.place(symbol),
                    "imports " + *demangled + " from Torch's C++ API, which is not part of the stable ABI a " +
                        view.variant.directory_name + " variant must use (only torch::stable:: and the C shims)");
      }
      return;
    }
    const auto shim = policy.torch_shim_versions.find(name);
    if (shim != policy.torch_shim_versions.end() && shim->second > torch) {
      sink.report(view.place(symbol), "imports " + symbol + " (Torch " + major_minor(shim->second) +
                                          " shim) but declares stable ABI " + major_minor(torch) + ": Torch " +
                                          major_minor(torch) + " lacks it");
    }
  }

  RuleInfo info_{"KE006",
                 "Stable-ABI variant uses Torch's unstable C++ API or a newer shim",
                 Severity::error,
                 R"(A `torch-stable-abi<MAJ><MIN>` variant promises to load in every Torch from
that version on. It may only call Torch through the stable C shims
(aoti_torch_*, torch_*) and the header-only torch::stable:: wrappers. An
import of a c10::, at:: or torch:: C++ symbol breaks with the next Torch
release; a shim function introduced after the declared Torch version is
missing from that Torch. Each symbol is reported, the shim with the Torch
version that introduced it.

Fix: use torch/csrc/stable/ (torch::stable::Tensor, STABLE_TORCH_LIBRARY)
instead of ATen/torch headers, and raise the variant's Torch version when a
newer shim is really needed.
)",
                 R"ex(// variant torch-stable-abi211-...
at::Tensor out = at::empty_like(x);   // imports at::empty_like(...))ex",
                 R"ex(// only the stable C shim (torch/csrc/stable), up to the policy's shim version
torch::stable::Tensor out = torch::stable::empty_like(x);)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_ke006_unstable_torch_symbol() { return std::make_unique<UnstableTorchSymbol>(); }

}  // namespace kcheck
