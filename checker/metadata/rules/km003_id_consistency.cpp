#include <algorithm>
#include <array>
#include <cctype>

#include "checker/metadata/rules/metadata_rule_table.h"
#include "checker/metadata/rules/metadata_rule_support.h"

namespace kcheck {
namespace {

constexpr std::array<std::string_view, 35> kPythonKeywords{
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

bool is_python_identifier(std::string_view text) {
  const auto word_character = [](unsigned char c) { return std::isalnum(c) != 0 || c == '_'; };
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text.front())) == 0 &&
         std::all_of(text.begin(), text.end(), word_character) &&
         std::find(kPythonKeywords.begin(), kPythonKeywords.end(), text) == kPythonKeywords.end();
}

// The namespaces `_ops.py` reaches through `torch.ops.<ns>`, each with the
// first line that uses it.
std::map<std::string, int> ops_namespaces(const VariantFacts& variant) {
  std::map<std::string, int> namespaces;
  for (const PythonFileFacts& file : variant.python_files) {
    if (file.relative_path != "_ops.py") continue;
    for (const PythonAttributeChain& chain : file.torch_ops_chains) {
      constexpr std::string_view prefix = "torch.ops.";
      if (!chain.chain.starts_with(prefix)) continue;
      const std::string rest = chain.chain.substr(prefix.size());
      namespaces.emplace(rest.substr(0, rest.find('.')), chain.line);
    }
  }
  return namespaces;
}

class IdConsistency final : public PerVariantMetadataRule {
 public:
  const RuleInfo& info() const override { return info_; }

 protected:
  void check_variant(const VariantFacts& variant, const RuleContext&, FindingSink& sink) const override {
    if (!variant.metadata.id || variant.metadata.id->empty()) return;  // KM002
    const std::string& id = *variant.metadata.id;
    const Place place = metadata_place(variant, "/id");
    if (!is_python_identifier(id)) {
      sink.report(place, "id '" + id +
                             "' is not a valid Python identifier (letters, digits and '_', not starting with a "
                             "digit, not a keyword): it cannot be the native module's name or the op namespace");
    }
    for (const auto& [ops_namespace, line] : ops_namespaces(variant)) {
      if (ops_namespace == id) continue;
      sink.report(place, "_ops.py line " + std::to_string(line) + " uses the op namespace torch.ops." + ops_namespace +
                             ", metadata id is '" + id + "': _ops.py must use torch.ops." + id);
    }
  }

 private:
  RuleInfo info_{"KM003",
                 "id is not a Python identifier, or differs from the op namespace in _ops.py",
                 Severity::error,
                 R"(The `id` in metadata.json (e.g. `_relu_cuda_0a1b2c3`) is at once the name
of the native module (`<id>.abi3.so`), the suffix of its `PyInit_<id>` entry
point, and the Torch op namespace that `_ops.py` exposes as
`torch.ops.<id>` (build-variants.md §3.2–3.3). The loader imports the module
under that id; if the file name, the init function or the namespace differ,
the import fails or ops land in a namespace nobody looks in. The id must be a
valid Python identifier for the same reason.

KM003 judges the id itself and `_ops.py`; the other two links of the chain
have their own rules, so one disagreement gives one finding: KL008 reports a
native module not named `<id>.abi3.so`, and KE008 a module whose `PyInit_`
export does not match its file name (together: `PyInit_<id>`).

Fix: rebuild with kernel-builder so that one TORCH_EXTENSION_NAME drives all
four, and do not rename the native module or edit `_ops.py` by hand.
)",
                 R"ex(metadata.json:  "id": "_relu_cpu_0a1b2c3"
_ops.py:        ops = torch.ops._relu_cpu_ffffff0)ex",
                 R"ex(metadata.json:  "id": "_relu_cpu_0a1b2c3"
_ops.py:        ops = torch.ops._relu_cpu_0a1b2c3)ex"};
};

}  // namespace

std::unique_ptr<Rule> make_km003_id_consistency() { return std::make_unique<IdConsistency>(); }

}  // namespace kcheck
