#pragma once
#include <map>
#include <string>
#include <string_view>

#include "checker/kinds/python_facts.h"

namespace kcheck {

// What each name bound by a file's absolute imports stands for:
// `import a.b` binds a -> a; `import a.b as c`: c -> a.b;
// `from a import b as c`: c -> a.b. Header-only so that every analyser
// folder can use it without a link dependency.
inline std::map<std::string, std::string, std::less<>> imported_name_targets(const PythonFileFacts& file) {
  std::map<std::string, std::string, std::less<>> targets;
  for (const PythonImport& import : file.imports) {
    if (import.level > 0) continue;
    if (!import.is_from) {
      const bool renamed =
          !import.bound_names.empty() && import.bound_names[0] != import.module.substr(0, import.module.find('.'));
      const std::string first = import.module.substr(0, import.module.find('.'));
      if (!import.bound_names.empty()) targets[import.bound_names[0]] = renamed ? import.module : first;
      continue;
    }
    for (std::size_t i = 0; i < import.names.size() && i < import.bound_names.size(); ++i) {
      if (import.names[i] != "*") targets[import.bound_names[i]] = import.module + "." + import.names[i];
    }
  }
  return targets;
}

// `callee` with its first component replaced by what an import binds it to:
// with `from torch import library`, "library.custom_op" -> "torch.library.custom_op".
inline std::string qualified_callee(const std::map<std::string, std::string, std::less<>>& targets,
                                    std::string_view callee) {
  const std::string_view first = callee.substr(0, callee.find('.'));
  const auto found = targets.find(first);
  if (found == targets.end()) return std::string(callee);
  return found->second + std::string(callee.substr(first.size()));
}

}  // namespace kcheck
