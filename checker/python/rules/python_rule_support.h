#pragma once
#include <string>

#include "checker/core/rule.h"
#include "checker/facts/tree_facts.h"

namespace kcheck {

// Where a finding about a line of a variant's Python file points.
inline Place python_place(const VariantFacts& variant, const PythonFileFacts& file, int line) {
  return {
      .variant = variant.directory_name, .file = variant.report_path(file.relative_path), .location = {.line = line}};
}

// A rule that judges each parsed Python file of each variant (files that do
// not parse are KP007's).
class PerPythonFileRule : public Rule {
 public:
  void check(const RuleContext& context, FindingSink& sink) const final {
    for (const VariantFacts& variant : context.tree.variants) {
      for (const PythonFileFacts& file : variant.python_files) {
        if (file.parsed) check_file(variant, file, context, sink);
      }
    }
  }

 protected:
  virtual void check_file(const VariantFacts& variant, const PythonFileFacts& file, const RuleContext& context,
                          FindingSink& sink) const = 0;
};

// `from a.b import c, d` / `import a.b`, as written (without aliases).
inline std::string import_statement_text(const PythonImport& import) {
  if (!import.is_from) return "import " + import.module;
  std::string names;
  for (const std::string& name : import.names) names += (names.empty() ? "" : ", ") + name;
  return "from " + std::string(static_cast<std::size_t>(import.level), '.') + import.module + " import " + names;
}

inline std::string top_level_module(const std::string& dotted) { return dotted.substr(0, dotted.find('.')); }

}  // namespace kcheck
